import { GetCommand, QueryCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { planChange, type ProductReads } from '../../../../lambdas/functions/send-prices/plan-change.js';
import type { ProductForRepricing } from '../../../../lambdas/data/repricing/inputs.js';
import type { MarketState } from '../../../../lambdas/domain/market-state.js';
import { connection, NOW, offer, open, sendable, slot } from './fixtures.js';

/**
 * The next step of a capped move (docs/price-sending.md, step 8): it goes out only after a
 * storefront read later than the last confirmed step, and only while the repricer still wants
 * the price from what that read showed, so a wrong view of the market moves a price by one
 * step at most.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const iso = (ms: number) => new Date(ms).toISOString();
const STEP_AT = iso(NOW - 60_000);
const CHANGE_SK = 'PC#1#O-1#00000001';

/** The own offer confirmed at 150 on the way to 89; one rival at `rival` as the last read showed it. */
const productWith = (market: MarketState | undefined, rival: number): ProductForRepricing =>
  ({
    product: { code: 'P-1', retail_price: 0 },
    offers: [offer('O-1', 160, 'own'), offer('C-1', rival, 'other')],
    slots: [slot],
    decisions: new Map([['1#O-1', { repricerId: 1, offerId: 'O-1', decisions: 1, lastPrice: 89, confirmedPrice: 150, confirmedAt: STEP_AT }]]),
    markets: new Map(market ? [['takealot', market]] : []),
    premiums: new Map(),
    wars: new Map(),
  }) as unknown as ProductForRepricing;
const reads = (product: ProductForRepricing) => ({ get: () => Promise.resolve(product) }) as unknown as ProductReads;
/** The capped move's change: pending again after its step to 150 was confirmed. */
const stepped = sendable({ confirmedPrice: 150 }, { new_price: 89, old_price: 187 });

beforeEach(() => {
  ddb.reset();
  process.env.TABLE_NAME = 'test-table';
  ddb.on(QueryCommand).resolves({ Items: [{ sk: CHANGE_SK }] });
  ddb.on(GetCommand).resolves({});
});

describe('the next step of a capped move', () => {
  it('waits while no page was read since the last step was confirmed, or the market is unknown', async () => {
    for (const market of [undefined, { state: 'known', readAt: iso(NOW - 120_000) }, { state: 'unknown', reason: 'empty_page', since: iso(NOW) }] as const) {
      expect(await planChange('c1', stepped, open(connection()), NOW, reads(productWith(market, 90)))).toMatchObject({ kind: 'wait' });
    }
  });

  it('goes on from the confirmed step once a later read still supports the target', async () => {
    const plan = await planChange('c1', stepped, open(connection()), NOW, reads(productWith({ state: 'known', readAt: iso(NOW - 1_000) }, 90)));
    // 150 less 20 %: the next step, toward 89 (one under the rival at 90).
    expect(plan).toMatchObject({ kind: 'push', current: 150, price: 120, rivalPrices: [90] });
  });

  it('stops where it is when the read after the step no longer supports the target, to be decided again', async () => {
    const plan = await planChange('c1', stepped, open(connection()), NOW, reads(productWith({ state: 'known', readAt: iso(NOW - 1_000) }, 170)));
    expect(plan).toMatchObject({ kind: 'move', to: 'superseded', forget: true });
  });
});
