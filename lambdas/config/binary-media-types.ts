/**
 * Request media types API Gateway hands the function base64-encoded (the RestApi's
 * `binaryMediaTypes`, and the local server's event): an NDJSON import body then reaches Lambda
 * at 4/3 of its size whatever it holds, instead of JSON-escaped text, which a body of quotes or
 * control characters doubles or grows sixfold past Lambda's 6 MB invocation payload.
 */
export const BINARY_MEDIA_TYPES: readonly string[] = ['application/x-ndjson'];

/** Whether a request's Content-Type is one of them (parameters such as `; charset=utf-8` ignored). */
export const isBinaryMediaType = (contentType: string | undefined): boolean =>
  contentType !== undefined && BINARY_MEDIA_TYPES.includes(contentType.split(';')[0]!.trim().toLowerCase());
