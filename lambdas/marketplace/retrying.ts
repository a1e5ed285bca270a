import { MarketplaceRateLimited, MarketplaceUnavailable } from './port.js';

/**
 * A marketplace call retried where a retry can help: a 5xx, a timeout or a refused connection
 * (with doubling, jittered waits) and a rate limit (after the marketplace's own Retry-After,
 * never sooner, when it is short enough to wait for). Anything else, and the last failure, is
 * thrown to the caller, which keeps what it holds and tries again on its next run.
 */
export interface RetryOptions {
  readonly attempts: number;
  readonly baseDelayMs: number;
  /** A Retry-After longer than this is not waited for here: the caller's next run comes sooner. */
  readonly maxWaitMs: number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  attempts: 4,
  baseDelayMs: 500,
  maxWaitMs: 20_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

export const withMarketplaceRetries = async <T>(call: () => Promise<T>, options: Partial<RetryOptions> = {}): Promise<T> => {
  const { attempts, baseDelayMs, maxWaitMs, sleep, random } = { ...DEFAULT_RETRY_OPTIONS, ...options };
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= attempts) throw error;
      if (error instanceof MarketplaceRateLimited) {
        if (error.retryAfterMs > maxWaitMs) throw error;
        // The whole window and a little more: a request inside it would be impolite.
        await sleep(error.retryAfterMs + 50);
      } else if (error instanceof MarketplaceUnavailable) {
        await sleep(Math.round(baseDelayMs * 2 ** (attempt - 1) * (0.5 + random())));
      } else {
        throw error;
      }
    }
  }
};
