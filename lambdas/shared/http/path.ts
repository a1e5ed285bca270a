import type { APIGatewayProxyEvent } from 'aws-lambda';

/** A path parameter, decoded: API Gateway REST APIs pass it percent-encoded. Undefined when it does not decode. */
export const pathParameter = (event: APIGatewayProxyEvent, name: string): string | undefined => {
  const raw = event.pathParameters?.[name];
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
};

/**
 * A numeric id: a positive decimal integer without sign, leading zeros or decimals. Anything
 * else names no resource, so the caller answers it like an unknown id.
 */
export const idParameter = (event: APIGatewayProxyEvent, name = 'id'): number | undefined => {
  const text = pathParameter(event, name);
  if (text === undefined || !/^[1-9]\d{0,15}$/.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
};
