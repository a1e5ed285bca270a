/**
 * The reset header in each reported form, from the simulator to the Takealot adapter over real
 * HTTP on 127.0.0.1: a 429 without `Retry-After` leaves the adapter only `x-RateLimit-Reset`, and
 * whichever form it takes (seconds to wait, or the moment as an epoch in seconds or milliseconds)
 * the wait the adapter reads is the bucket's refill, never a misread epoch.
 */
import { MARKETPLACE_HOLD_MAX_MS } from '../../../lambdas/config/marketplace-holds.js';
import { MarketplaceRateLimited } from '../../../lambdas/marketplace/port.js';
import { createTakealotAdapter } from '../../../lambdas/marketplace/takealot/adapter.js';
import { ManualClock } from '../../../tools/market/clock.js';
import { createMarketSimulator } from '../../../tools/market/index.js';
import { RateLimiter, rateLimitHeaders } from '../../../tools/market/rate-limit.js';
import type { ResetForm } from '../../../tools/market/options.js';

describe('x-RateLimit-Reset forms', () => {
  it('writes the reset as a delta, an epoch in seconds or an epoch in milliseconds, and leaves Retry-After out when told', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 28, 12, 0, 0));
    const limiter = new RateLimiter({ capacity: 2, refillPerSecond: 0.5 }, clock);
    limiter.take('k');
    limiter.take('k');
    const refused = limiter.take('k');
    expect(rateLimitHeaders(refused)['x-RateLimit-Reset']).toBe('4');
    expect(rateLimitHeaders(refused, { resetForm: 'epoch-seconds' })['x-RateLimit-Reset']).toBe(String(Date.UTC(2026, 10, 28, 12, 0, 4) / 1000));
    expect(rateLimitHeaders(refused, { resetForm: 'epoch-milliseconds' })['x-RateLimit-Reset']).toBe(String(Date.UTC(2026, 10, 28, 12, 0, 4)));
    expect(rateLimitHeaders(refused, { retryAfter: false })['Retry-After']).toBeUndefined();
    expect(rateLimitHeaders(refused)['Retry-After']).toBe('2');
  });

  it.each<ResetForm>(['delta', 'epoch-seconds', 'epoch-milliseconds'])('the adapter reads a %s reset as the wait it is', async (resetForm) => {
    const market = await createMarketSimulator({
      port: 0,
      seed: 7,
      products: 2,
      competitors: 1,
      tickIntervalMs: 0,
      sellerRateLimit: { capacity: 1, refillPerSecond: 0.1, resetForm, retryAfter: false },
    });
    try {
      const port = createTakealotAdapter({ sellerApiUrl: market.sellerApiUrl, storefrontUrl: market.storefrontUrl });
      expect(await port.checkKey(market.apiKey)).toBe('accepted');
      const error = await port.checkKey(market.apiKey).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MarketplaceRateLimited);
      // The bucket refills one token in 10 s: the reset is at most 10 s away (a second's rounding either way).
      const waitMs = (error as MarketplaceRateLimited).retryAfterMs;
      expect(waitMs).toBeGreaterThan(7_000);
      expect(waitMs).toBeLessThanOrEqual(11_000);
      expect(waitMs).toBeLessThan(MARKETPLACE_HOLD_MAX_MS);
    } finally {
      await market.stop();
    }
  });
});
