import { DEFAULT_RETRY_SCHEDULE, nextRetryDelayMs, signedHeaders, webhookEventBody, webhookSignature } from '../../../../lambdas/domain/webhooks.js';

describe('webhookSignature', () => {
  it("reproduces the Standard Webhooks specification's published signature, so its libraries verify our deliveries", () => {
    expect(webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('signs the id, the time and the body: changing any one changes the signature', () => {
    const secret = `whsec_${'ab'.repeat(32)}`;
    const signature = webhookSignature(secret, 'E-1', 1000, 'body');
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(webhookSignature(secret, 'E-2', 1000, 'body')).not.toBe(signature);
    expect(webhookSignature(secret, 'E-1', 1001, 'body')).not.toBe(signature);
    expect(webhookSignature(secret, 'E-1', 1000, 'body ')).not.toBe(signature);
    expect(webhookSignature(`whsec_${'ac'.repeat(32)}`, 'E-1', 1000, 'body')).not.toBe(signature);
  });
});

describe('signedHeaders', () => {
  it('are webhook-id, webhook-timestamp (Unix seconds) and webhook-signature', () => {
    const secret = `whsec_${'ab'.repeat(32)}`;
    expect(signedHeaders(secret, 'E-1', 1763806530, '{}')).toEqual({
      'webhook-id': 'E-1',
      'webhook-timestamp': '1763806530',
      'webhook-signature': webhookSignature(secret, 'E-1', 1763806530, '{}'),
    });
  });
});

describe('webhookEventBody', () => {
  it('carries the event id beside its type, time and data', () => {
    const body = webhookEventBody({ eventId: 'E-1', eventType: 'BUYBOX_WON', eventTimestamp: '2026-11-22T10:05:00.000Z', data: { id: 9 } });
    expect(body).toBe('{"event_id":"E-1","event_type":"BUYBOX_WON","event_timestamp":"2026-11-22T10:05:00.000Z","event_data":{"id":9}}');
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
