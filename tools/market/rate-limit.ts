/**
 * Token buckets, one per key (an API key, or a caller's address for the storefront). A request
 * takes one token; the bucket refills continuously at `refillPerSecond` up to `capacity`. Time
 * comes from the injected clock, so a test can show that nothing is admitted above the limit
 * and that waiting the `Retry-After` it was given is enough.
 */
import type { Clock } from './clock.js';
import type { ResetForm, TokenBucketSettings } from './options.js';

export interface RateDecision {
  admitted: boolean;
  /** x-RateLimit-Limit */
  limit: number;
  /** x-RateLimit-Remaining: whole tokens left after this request. */
  remaining: number;
  /** x-RateLimit-Reset: seconds until the bucket is full again. */
  resetSeconds: number;
  /** The moment it is full again (ms since the epoch, on the simulator's clock): the reset's epoch forms. */
  resetAtMs: number;
  /** Retry-After when refused: seconds until one token is back. */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Buckets beyond this are dropped, the full ones first: a flood of made-up keys cannot fill memory. */
const MAX_BUCKETS = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly settings: TokenBucketSettings,
    private readonly clock: Clock,
  ) {}

  take(key: string): RateDecision {
    const now = this.clock.now();
    const bucket = this.refilled(key, now);
    const admitted = bucket.tokens >= 1;
    if (admitted) bucket.tokens -= 1;
    const { capacity, refillPerSecond } = this.settings;
    return {
      admitted,
      limit: capacity,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((capacity - bucket.tokens) / refillPerSecond),
      resetAtMs: now + Math.ceil((capacity - bucket.tokens) / refillPerSecond) * 1000,
      retryAfterSeconds: admitted ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerSecond)),
    };
  }

  private refilled(key: string, now: number): Bucket {
    const { capacity, refillPerSecond } = this.settings;
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (this.buckets.size >= MAX_BUCKETS) this.evict(now);
      bucket = { tokens: capacity, updatedAt: now };
      this.buckets.set(key, bucket);
    }
    const elapsedSeconds = Math.max(0, now - bucket.updatedAt) / 1000;
    bucket.tokens = Math.min(capacity, bucket.tokens + elapsedSeconds * refillPerSecond);
    bucket.updatedAt = now;
    return bucket;
  }

  private evict(now: number): void {
    const { capacity, refillPerSecond } = this.settings;
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * refillPerSecond >= capacity) this.buckets.delete(key);
    }
    // All busy: drop the oldest, which a fresh full bucket replaces (never stricter than before).
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value as string);
  }
}

const resetValue = (decision: RateDecision, form: ResetForm): string =>
  form === 'epoch-seconds'
    ? String(Math.ceil(decision.resetAtMs / 1000))
    : form === 'epoch-milliseconds'
      ? String(decision.resetAtMs)
      : String(decision.resetSeconds);

/**
 * The rate-limit headers every seller API response carries: the reset in the form the settings
 * name (the same form on every response, so a seed replays the same headers), and `Retry-After`
 * on a refusal unless the settings leave it out.
 */
export const rateLimitHeaders = (decision: RateDecision, settings: Pick<TokenBucketSettings, 'resetForm' | 'retryAfter'> = {}): Record<string, string> => ({
  'x-RateLimit-Limit': String(decision.limit),
  'x-RateLimit-Remaining': String(decision.remaining),
  'x-RateLimit-Reset': resetValue(decision, settings.resetForm ?? 'delta'),
  ...(decision.admitted || settings.retryAfter === false ? {} : { 'Retry-After': String(decision.retryAfterSeconds) }),
});
