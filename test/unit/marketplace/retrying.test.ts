import { MarketplaceMalformed, MarketplaceRateLimited, MarketplaceUnauthorized, MarketplaceUnavailable } from '../../../lambdas/marketplace/port.js';
import { withMarketplaceRetries } from '../../../lambdas/marketplace/retrying.js';

const failing = (...errors: Error[]) => {
  let calls = 0;
  const call = () => {
    const error = errors[calls++];
    return error ? Promise.reject(error) : Promise.resolve('ok');
  };
  return { call, calls: () => calls };
};

describe('withMarketplaceRetries', () => {
  it('retries 5xx and timeouts with doubling waits, then answers', async () => {
    const waits: number[] = [];
    const { call, calls } = failing(new MarketplaceUnavailable('500'), new MarketplaceUnavailable('timeout'));
    await expect(withMarketplaceRetries(call, { sleep: (ms) => (waits.push(ms), Promise.resolve()), random: () => 0.5, baseDelayMs: 100 })).resolves.toBe('ok');
    expect(calls()).toBe(3);
    expect(waits).toEqual([100, 200]);
  });

  it('waits out the whole Retry-After before asking again', async () => {
    const waits: number[] = [];
    const { call } = failing(new MarketplaceRateLimited(3_000));
    await withMarketplaceRetries(call, { sleep: (ms) => (waits.push(ms), Promise.resolve()) });
    expect(waits[0]).toBeGreaterThanOrEqual(3_000);
  });

  it('does not wait for a Retry-After longer than its limit, and gives up after its attempts', async () => {
    const sleep = () => Promise.resolve();
    await expect(withMarketplaceRetries(failing(new MarketplaceRateLimited(60_000)).call, { sleep, maxWaitMs: 20_000 })).rejects.toBeInstanceOf(
      MarketplaceRateLimited,
    );
    const four = failing(...Array.from({ length: 4 }, () => new MarketplaceUnavailable('500')));
    await expect(withMarketplaceRetries(four.call, { sleep, attempts: 4 })).rejects.toBeInstanceOf(MarketplaceUnavailable);
    expect(four.calls()).toBe(4);
  });

  it('never retries a refused key or a malformed answer', async () => {
    const sleep = () => Promise.resolve();
    for (const error of [new MarketplaceUnauthorized('401'), new MarketplaceMalformed('shape')]) {
      const once = failing(error);
      await expect(withMarketplaceRetries(once.call, { sleep })).rejects.toBe(error);
      expect(once.calls()).toBe(1);
    }
  });
});
