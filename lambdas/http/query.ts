import type { APIGatewayProxyEvent } from 'aws-lambda';
import { validationFailed } from './errors.js';

/** Query parameters as a plain object; a parameter given twice is refused, not silently merged. */
export const singleQueryParameters = (event: APIGatewayProxyEvent): Record<string, string> => {
  const repeated = Object.entries(event.multiValueQueryStringParameters ?? {})
    .filter(([, values]) => (values?.length ?? 0) > 1)
    .map(([name]) => ({ field: name.toWellFormed(), message: 'This parameter may be given only once.' }));
  if (repeated.length > 0) throw validationFailed(repeated, 'The query parameters are not valid.');
  return Object.fromEntries(Object.entries(event.queryStringParameters ?? {}).filter((e): e is [string, string] => e[1] !== undefined));
};

/** For operations that take no query parameters: any one given is refused, by name. */
export const noQueryParameters = (event: APIGatewayProxyEvent): void => {
  const unknown = Object.keys(singleQueryParameters(event));
  if (unknown.length > 0) {
    throw validationFailed(
      unknown.map((name) => ({ field: name.toWellFormed(), message: 'This operation takes no query parameters.' })),
      'The query parameters are not valid.',
    );
  }
};
