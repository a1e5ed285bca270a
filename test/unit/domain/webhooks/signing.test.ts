import { createHmac } from 'node:crypto';
import { DEFAULT_RETRY_SCHEDULE, nextRetryDelayMs, signatureHeader, verifySignature } from '../../../../lambdas/domain/webhooks.js';

describe('signatureHeader', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
    // Prepare
    const body = '{"event_type":"REPRICER_PRICE_CHANGED"}';
    const expected = createHmac('sha256', 'whsec_test').update(`1763806530.${body}`).digest('hex');

    // Act
    const header = signatureHeader('whsec_test', body, 1763806530);

    // Assert
    expect(header).toBe(`t=1763806530,v1=${expected}`);
  });

  it('verifies with the right secret and body while fresh, and nothing else', () => {
    const header = signatureHeader('whsec_a', 'body', 1000);
    expect(verifySignature('whsec_a', 'body', header, 1000)).toBe(true);
    expect(verifySignature('whsec_a', 'body', header, 1299)).toBe(true);
    expect(verifySignature('whsec_a', 'body', header, 1301)).toBe(false);
    expect(verifySignature('whsec_b', 'body', header, 1000)).toBe(false);
    expect(verifySignature('whsec_a', 'body ', header, 1000)).toBe(false);
    expect(verifySignature('whsec_a', 'body', header.replace('t=1000', 't=1001'), 1000)).toBe(false);
    expect(verifySignature('whsec_a', 'body', 'garbage', 1000)).toBe(false);
  });
});

describe('nextRetryDelayMs', () => {
  it('doubles from 30 s up to 15 min and stops after 24 hours', () => {
    // Act: the schedule as the worker walks it, each attempt taking no time
    const delays: number[] = [];
    let now = 0;
    for (let attempts = 1; ; attempts++) {
      const delay = nextRetryDelayMs(DEFAULT_RETRY_SCHEDULE, attempts, 0, now);
      if (delay === undefined) break;
      delays.push(delay);
      now += delay;
    }

    // Assert
    expect(delays.slice(0, 7)).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000]);
    expect(now).toBeLessThanOrEqual(DEFAULT_RETRY_SCHEDULE.windowMs);
    expect(now + 900_000).toBeGreaterThan(DEFAULT_RETRY_SCHEDULE.windowMs);
    expect(delays.length).toBeGreaterThan(90);
    expect(delays.length).toBeLessThan(110);
  });
});
