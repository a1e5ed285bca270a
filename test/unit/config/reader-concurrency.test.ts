import { MARKET_SYNC, readerConcurrency } from '../../../lambdas/config/market-sync.js';

describe('readers at once', () => {
  it('scale with the stage rate (the budget is stored, so more readers never read faster), never below the event source’s least', () => {
    expect(readerConcurrency()).toBe(2);
    expect(readerConcurrency(MARKET_SYNC.storefrontRequestsPerSecond)).toBe(2);
    expect(readerConcurrency(0.5)).toBe(2);
    expect(readerConcurrency(100)).toBe(20);
    expect(readerConcurrency(1_000)).toBe(200);
  });
});
