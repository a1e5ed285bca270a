/**
 * The one answer to "DynamoDB could not serve this request now" (it timed out, throttled or kept
 * conflicting after every retry): 503 with a retry hint. The error handler gives it for a route's
 * own calls, and API Gateway's authorizer-error responses give it (lib/gateway-responses.ts, and
 * tools/local/server.ts locally) when the authorizer could not read the client for the same
 * reason, so a client sees the same answer whether or not its authorization was cached.
 */
export const RETRY_AFTER_SECONDS = '1';
export const UNAVAILABLE_HEADERS: Readonly<Record<string, string>> = { 'Retry-After': RETRY_AFTER_SECONDS };
