import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { offerStatePartition, offerStateSortKey } from '../../../../lambdas/data/table/keys.js';
import { readOfferTimeline, recordOfferStates } from '../../../../lambdas/data/offers/states.js';
import { readPriceChangesSince } from '../../../../lambdas/data/price-changes/history.js';
import { PRICE_CHANGE_SCHEMA_VERSION } from '../../../../lambdas/data/price-changes/list.js';
import { priceChangeKey } from '../../../../lambdas/data/table/keys.js';
import type { OfferStateChange } from '../../../../lambdas/domain/repricer-stats.js';
import type { PriceChange } from '../../../../lambdas/domain/records.js';
import { FakeTable, TABLE } from '../fake-table.js';

/** What the stats read: one offer's states around a window, a repricer's price changes since a time; nothing of other offers or repricers. */
const ddb = mockClient(DynamoDBDocumentClient);
let table: FakeTable;

const T0 = Date.parse('2026-01-10T00:00:00.000Z');
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const state = (offerId: string, minutes: number, winning: boolean): OfferStateChange => ({
  productCode: 'SKU-1',
  offerId,
  connector: 'takealot',
  at: iso(minutes),
  present: true,
  winning,
  winningDelivery: false,
  price: 10,
});
const change = (repricerId: number, offerId: string, n: number, minutes: number): Record<string, unknown> => {
  const record: PriceChange = {
    id: repricerId * 100 + n,
    uid: '00000000-0000-4000-8000-000000000000',
    repricer_id: repricerId,
    offer_id: offerId,
    product_code: 'SKU-1',
    connector: 'takealot',
    old_price: 10,
    new_price: 9,
    reason: n % 2 === 0 ? 'floor' : 'undercut',
    lowest_competitor_price: null,
    competitor_offer_id: null,
    status: 'pending',
    status_reason: null,
    sent_price: null,
    sent_at: null,
    applied_at: null,
    explanation: null,
    created_at: iso(minutes),
    updated_at: iso(minutes),
  };
  return { ...priceChangeKey('c1', 'SKU-1', repricerId, offerId, n), entity: 'priceChange', sv: PRICE_CHANGE_SCHEMA_VERSION, record };
};

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  table = new FakeTable().serve(ddb);
});

describe('readOfferTimeline', () => {
  it('reads the last state at or before the window and those inside it, of this offer only (not one whose id it prefixes, nor one that sorts between)', async () => {
    // Arrange: states of A at 0, 10, 20, 30, 40; of "A!" and "AB" in between (their keys sort around A's).
    await recordOfferStates('c1', [
      ...[0, 10, 20, 30, 40].map((minutes) => state('A', minutes, minutes % 20 === 0)),
      state('A!', 15, true),
      state('AB', 25, true),
    ]);

    // Act
    const timeline = await readOfferTimeline('c1', 'SKU-1', 'A', { from: T0 + 12 * 60_000, to: T0 + 35 * 60_000 });

    // Assert
    expect(timeline.before).toMatchObject({ at: T0 + 10 * 60_000, winning: false });
    expect(timeline.within.map((s) => [(s.at - T0) / 60_000, s.winning])).toEqual([
      [20, true],
      [30, false],
    ]);
  });

  it('takes a state exactly at the start as the one before, not as a change inside', async () => {
    await recordOfferStates('c1', [state('A', 10, true), state('A', 20, false)]);
    const timeline = await readOfferTimeline('c1', 'SKU-1', 'A', { from: T0 + 10 * 60_000, to: T0 + 30 * 60_000 });
    expect(timeline.before?.at).toBe(T0 + 10 * 60_000);
    expect(timeline.within.map((s) => s.at)).toEqual([T0 + 20 * 60_000]);
  });

  it('writes each state once under its offer and time, so a repeat is the same item', async () => {
    await recordOfferStates('c1', [state('A', 10, true)]);
    await recordOfferStates('c1', [state('A', 10, true)]);
    expect(table.withPrefix(offerStatePartition('c1', 'SKU-1')).map((item) => item.sk)).toEqual([offerStateSortKey('A', iso(10))]);
  });
});

describe('readPriceChangesSince', () => {
  it("answers the repricer's price changes for the offer created at or after the time, and none of another repricer or offer", async () => {
    // Arrange: repricer 7 decided for A at 0, 10, 20, 30; repricer 70 (its id prefixes no other) and offer AB beside.
    for (const item of [
      change(7, 'A', 1, 0),
      change(7, 'A', 2, 10),
      change(7, 'A', 3, 20),
      change(7, 'A', 4, 30),
      change(70, 'A', 1, 25),
      change(7, 'AB', 1, 25),
    ]) {
      table.put(item);
    }

    // Act
    const changes = await readPriceChangesSince('c1', 'SKU-1', 7, 'A', T0 + 10 * 60_000);

    // Assert
    expect(changes.map((c) => c.created_at).sort()).toEqual([iso(10), iso(20), iso(30)]);
    expect(changes.map((c) => c.reason).sort()).toEqual(['floor', 'floor', 'undercut']);
  });
});
