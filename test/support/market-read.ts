import { writeMarketState } from '../../lambdas/data/repricing/market-views.js';

/**
 * A product's market recorded as read (known) at `atMs`, as the storefront reader records it:
 * for tests that drive the price sender with a clock ahead of real time, whose pushes answer to
 * a market read no longer ago than the sender accepts (docs/price-sending.md).
 */
export const marketReadAt = (clientId: string, productCode: string, atMs: number, connector = 'takealot'): Promise<void> =>
  writeMarketState(clientId, productCode, connector, { market: { state: 'known', readAt: new Date(atMs).toISOString() } });
