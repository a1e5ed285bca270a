/**
 * The `Retry-After` values API Gateway sends with its own throttling answers. Plain strings, no
 * CDK: the stack writes them into its gateway responses and the OpenAPI document shows them.
 */

/** Retry hint for gateway throttling: the stage's token bucket refills every second. */
export const THROTTLED_RETRY_AFTER_SECONDS = '1';

/**
 * Retry hint once a client's daily quota is used up. A gateway response header is static, so
 * it cannot name the next 00:00 UTC: an hour keeps a waiting client from retrying in vain
 * every second, and the body says when the quota renews.
 */
export const QUOTA_RETRY_AFTER_SECONDS = '3600';
