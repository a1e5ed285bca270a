import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * What a marketplace webhook's signature covers, taken from the request as the gateway passes
 * it on, untouched: this route has no JSON body parser, so the body is the text that was signed.
 */

/** The body as sent: API Gateway's text as is, or its base64 decoded (a binary media type). */
export const rawBodyOf = (event: APIGatewayProxyEvent): string => {
  if (event.body == null) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
};

export const rawBodyBytes = (event: APIGatewayProxyEvent): number => {
  if (event.body == null) return 0;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').byteLength : Buffer.byteLength(event.body, 'utf8');
};

/**
 * The public URL the marketplace posted to, which the "URL + body" signature scheme signs: on
 * AWS `https://<the domain called><the path called>` (`requestContext.path` holds the stage, or a
 * custom domain's base path, as called); under the local server, which has neither,
 * `http://<Host><path>`. Never with a query string: the URL a seller registers has none (and
 * API Gateway passes no raw query string to sign).
 */
export const publicUrlOf = (event: APIGatewayProxyEvent): string => {
  const domainName = event.requestContext.domainName;
  if (domainName) return `https://${domainName}${event.requestContext.path}`;
  const host = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'host')?.[1];
  return `http://${host ?? 'localhost'}${event.path}`;
};

/** The request's headers, each with one value (what the verifier reads). */
export const headersOf = (event: APIGatewayProxyEvent): Record<string, string> =>
  Object.fromEntries(Object.entries(event.headers ?? {}).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])));
