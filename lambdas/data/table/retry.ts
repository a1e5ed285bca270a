/**
 * The one retry policy of the data layer: unprocessed batch items, transactions that lost a
 * race and rank nodes whose bounds moved are all retried here, with full-jitter exponential
 * backoff. Its worst case (about 2.5 s of waiting) fits inside the 10 s function timeout
 * together with the SDK's own attempts (see docs/operations.md).
 */
export const RETRY_ATTEMPTS = 10;
const BASE_DELAY_MS = 20;
const MAX_DELAY_MS = 500;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Full jitter: a random wait up to the exponential bound, so racing writers spread out. */
export const backoff = (attempt: number) => sleep(Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt));

/** A write that kept losing races: the caller may try again later (HTTP 503 with Retry-After). */
export class ContentionError extends Error {
  constructor(what: string) {
    super(`${what} kept conflicting with concurrent writes`);
    this.name = 'ContentionError';
  }
}

/** The marker `attempt` returns to be called again after a backoff. */
export const AGAIN = Symbol('again');

/**
 * Calls `attempt` until it returns something other than `AGAIN`, waiting between calls;
 * throws `ContentionError` naming `what` when the attempts run out.
 */
export const retrying = async <T>(what: string, attempt: (n: number) => Promise<T | typeof AGAIN>): Promise<T> => {
  for (let n = 0; n < RETRY_ATTEMPTS; n++) {
    if (n > 0) await backoff(n);
    const result = await attempt(n);
    if (result !== AGAIN) return result;
  }
  throw new ContentionError(what);
};
