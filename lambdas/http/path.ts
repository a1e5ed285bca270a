import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isStorableText } from '../domain/text.js';

/**
 * A path parameter, decoded: API Gateway REST APIs pass it percent-encoded. Undefined when it
 * does not decode (invalid UTF-8 such as `%ED%A0%80`) or is not well-formed Unicode: such a
 * value names nothing, so the caller answers it like an unknown id.
 */
export const pathParameter = (event: APIGatewayProxyEvent, name: string): string | undefined => {
  const raw = event.pathParameters?.[name];
  if (raw === undefined) return undefined;
  try {
    const decoded = decodeURIComponent(raw);
    return isStorableText(decoded) ? decoded : undefined;
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
