import { jest } from '@jest/globals';
import { PushInDoubt, refusedForCertain, sendOnce } from '../../../../lambdas/functions/send-prices/push.js';
import {
  MarketplaceMalformed,
  MarketplaceNotFound,
  MarketplaceRateLimited,
  MarketplaceRejected,
  MarketplaceUnauthorized,
  MarketplaceUnavailable,
} from '../../../../lambdas/marketplace/port.js';
import { withMarketplaceRetries } from '../../../../lambdas/marketplace/retrying.js';

/**
 * What a push's fault says about the batch (docs/price-sending.md, "Faults"): only a definite
 * refusal may be tried again; after any fault the marketplace may have taken the batch behind,
 * the push is in doubt and the retries around it do not repeat it.
 */
const retries = { attempts: 4, baseDelayMs: 1, sleep: () => Promise.resolve(), random: () => 0.5 };

describe('a push attempt', () => {
  it.each([
    ['a timeout', new MarketplaceUnavailable('Takealot seller API no answer within 10000 ms')],
    ['a reset or refused connection', new MarketplaceUnavailable('Takealot seller API not reachable')],
    ['a 5xx, whatever its body says', new MarketplaceUnavailable('Takealot seller API answered 503')],
    ['a 2xx without the documented answer', new MarketplaceMalformed('Takealot batch answer does not have the documented shape')],
    ['anything unforeseen', new TypeError('fetch failed')],
  ])('is in doubt after %s, and is not sent again by the retries', async (_what, fault) => {
    const send = jest.fn(() => Promise.reject(fault));
    const attempt = withMarketplaceRetries(() => sendOnce(send), retries);
    await expect(attempt).rejects.toBeInstanceOf(PushInDoubt);
    await expect(attempt).rejects.toMatchObject({ cause: fault });
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('is tried again after a short 429: the marketplace refused it, so it did not take the batch', async () => {
    const send = jest.fn<() => Promise<{ batchId: string }>>().mockRejectedValueOnce(new MarketplaceRateLimited(100)).mockResolvedValueOnce({ batchId: '7' });
    await expect(withMarketplaceRetries(() => sendOnce(send), retries)).resolves.toEqual({ batchId: '7' });
    expect(send).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['a long 429', new MarketplaceRateLimited(60_000)],
    ['a refused key', new MarketplaceUnauthorized('refused')],
    ['a validation error', new MarketplaceRejected('selling price must be whole')],
    ['a 404', new MarketplaceNotFound('Offer not found')],
  ])('passes %s on as it is: a definite refusal', async (_what, refusal) => {
    expect(refusedForCertain(refusal)).toBe(true);
    await expect(withMarketplaceRetries(() => sendOnce(() => Promise.reject(refusal)), { ...retries, maxWaitMs: 20_000 })).rejects.toBe(refusal);
  });

  it('tells a 5xx the marketplace answered (the same prices may go again at once) from a timeout or a reset', () => {
    expect(new PushInDoubt(new MarketplaceUnavailable('Takealot seller API answered 503', 503)).answered).toBe(true);
    expect(new PushInDoubt(new MarketplaceUnavailable('Takealot seller API no answer within 10000 ms')).answered).toBe(false);
    expect(new PushInDoubt(new MarketplaceMalformed('Takealot batch answer does not have the documented shape')).answered).toBe(false);
  });
});
