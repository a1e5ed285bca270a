import fc from 'fast-check';
import { ManualClock } from '../../../tools/market/clock.js';
import { RateLimiter, rateLimitHeaders } from '../../../tools/market/rate-limit.js';

describe('token bucket rate limit', () => {
  it('admits the burst, then refuses with Retry-After, and admits again once Retry-After has passed', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter({ capacity: 3, refillPerSecond: 0.5 }, clock);
    expect([1, 2, 3].map(() => limiter.take('k').admitted)).toEqual([true, true, true]);
    const refused = limiter.take('k');
    expect(refused).toMatchObject({ admitted: false, limit: 3, remaining: 0, retryAfterSeconds: 2 });
    expect(rateLimitHeaders(refused)).toEqual({ 'x-RateLimit-Limit': '3', 'x-RateLimit-Remaining': '0', 'x-RateLimit-Reset': '6', 'Retry-After': '2' });
    clock.advance(1_999);
    expect(limiter.take('k').admitted).toBe(false);
    clock.advance(1);
    expect(limiter.take('k').admitted).toBe(true);
  });

  it('keeps one bucket per key', () => {
    const limiter = new RateLimiter({ capacity: 1, refillPerSecond: 1 }, new ManualClock());
    expect(limiter.take('a').admitted).toBe(true);
    expect(limiter.take('a').admitted).toBe(false);
    expect(limiter.take('b').admitted).toBe(true);
  });

  it('never admits more than capacity + rate * elapsed, and waiting Retry-After always gets the next request in', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 700 }), { minLength: 1, maxLength: 200 }),
        (capacity, rate, gaps) => {
          const clock = new ManualClock(0);
          const limiter = new RateLimiter({ capacity, refillPerSecond: rate }, clock);
          let admitted = 0;
          for (const gap of gaps) {
            clock.advance(gap);
            const decision = limiter.take('k');
            if (decision.admitted) admitted += 1;
            else {
              // A client that honours Retry-After is admitted on its next try.
              clock.advance(decision.retryAfterSeconds * 1000);
              expect(limiter.take('k').admitted).toBe(true);
              admitted += 1;
            }
            expect(admitted).toBeLessThanOrEqual(capacity + Math.floor((clock.now() * rate) / 1000) + 1e-9);
          }
        },
      ),
    );
  });
});
