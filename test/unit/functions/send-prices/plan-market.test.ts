import { GetCommand, QueryCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { planChange, type ProductReads } from '../../../../lambdas/functions/send-prices/plan-change.js';
import type { ProductForRepricing } from '../../../../lambdas/data/repricing/inputs.js';
import type { MarketState } from '../../../../lambdas/domain/market-state.js';
import type { Gate } from '../../../../lambdas/functions/send-prices/gate.js';
import { connection, NOW, offer, open, sendable, slot } from './fixtures.js';

/**
 * Every push answers to the market as last read (docs/price-sending.md, step 8): a change the
 * last read no longer supports, or whose market is unknown or read too long ago, is decided
 * again; after a resume nothing goes before a page read after it; a decision has 24 hours to
 * reach the marketplace, a capped move included; and no different price goes for an offer
 * while an earlier push of it is in doubt.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const iso = (ms: number) => new Date(ms).toISOString();
const CHANGE_SK = 'PC#1#O-1#00000001';
const MINUTE = 60_000;

/** The own offer at 100; one rival at `rival` as the last read showed it. */
const productWith = (market: MarketState | undefined, rival: number, confirmedAt?: string): ProductForRepricing =>
  ({
    product: { code: 'P-1', retail_price: 0 },
    offers: [offer('O-1', 100, 'own'), offer('C-1', rival, 'other')],
    slots: [slot],
    decisions: new Map([
      ['1#O-1', { repricerId: 1, offerId: 'O-1', decisions: 1, lastPrice: 89, ...(confirmedAt ? { confirmedPrice: 95, confirmedAt } : {}) }],
    ]),
    markets: new Map(market ? [['takealot', market]] : []),
    premiums: new Map(),
    wars: new Map(),
  }) as unknown as ProductForRepricing;
const reads = (product: ProductForRepricing) => ({ get: () => Promise.resolve(product) }) as unknown as ProductReads;
const known = (readAgoMs: number): MarketState => ({ state: 'known', readAt: iso(NOW - readAgoMs) });
/** Decided a minute ago: 89, one under the rival at 90. */
const decided = sendable({}, { new_price: 89, old_price: 100 });
const plan = (change = decided, product = productWith(known(1_000), 90), gate: Gate = open(connection())) =>
  planChange('c1', change, gate, NOW, reads(product));

beforeEach(() => {
  ddb.reset();
  process.env.TABLE_NAME = 'test-table';
  ddb.on(QueryCommand).resolves({ Items: [{ sk: CHANGE_SK, record: { status: 'pending' } }] });
  ddb.on(GetCommand).resolves({});
});

describe('a push answers to the market as last read', () => {
  it('goes while the last read still supports its price', async () => {
    expect(await plan()).toMatchObject({ kind: 'push', price: 89 });
  });

  it('is decided again when the last read no longer supports it (a glitch read, then corrected)', async () => {
    expect(await plan(decided, productWith(known(1_000), 170))).toMatchObject({
      kind: 'move',
      to: 'superseded',
      forget: true,
      reason: expect.stringMatching(/no longer supports 89/) as unknown,
    });
  });

  it('waits while the market is unknown for a moment, and is decided again once it stays unknown', async () => {
    const unknown = (agoMs: number): MarketState => ({ state: 'unknown', reason: 'empty_page', since: iso(NOW - agoMs) });
    expect(await plan(decided, productWith(unknown(10_000), 90))).toMatchObject({ kind: 'wait' });
    expect(await plan(decided, productWith(unknown(30 * MINUTE), 90))).toMatchObject({ kind: 'move', to: 'superseded', forget: true });
  });

  it('is decided again when the market was read too long ago', async () => {
    expect(await plan(decided, productWith(known(30 * MINUTE), 90))).toMatchObject({
      kind: 'move',
      to: 'superseded',
      forget: true,
      reason: expect.stringMatching(/too long ago/) as unknown,
    });
  });

  it('after a resume, waits for a page read after it; then goes only as that read supports', async () => {
    const resumed = open(connection());
    const gate = { ...resumed, stored: { ...resumed.stored, breakerClearedAt: iso(NOW - 30_000) } };
    expect(await plan(decided, productWith(known(40_000), 90), gate)).toMatchObject({ kind: 'wait' });
    expect(await plan(decided, productWith(known(10_000), 90), gate)).toMatchObject({ kind: 'push', price: 89 });
    expect(await plan(decided, productWith(known(10_000), 170), gate)).toMatchObject({ kind: 'move', to: 'superseded', forget: true });
  });

  it('a price the client applied is its own decision: not held to the market', async () => {
    expect(await plan(sendable({ requested: true }, { new_price: 89 }), productWith(known(1_000), 170))).toMatchObject({ kind: 'push', price: 89 });
  });
});

describe('every change ends', () => {
  it('a capped move not finished 24 hours after its decision ends, whatever its confirmed steps', async () => {
    const old = sendable({ confirmedPrice: 95 }, { new_price: 89, old_price: 187, created_at: iso(NOW - 25 * 3_600_000) });
    expect(await plan(old, productWith(known(1_000), 90, iso(NOW - 10_000)))).toMatchObject({
      kind: 'move',
      to: 'superseded',
      forget: true,
      reason: expect.stringMatching(/Stopped at 95: .*24 hours/) as unknown,
    });
  });

  it('a change held (paused, then resumed) past 24 hours is decided again', async () => {
    const old = sendable({}, { new_price: 89, created_at: iso(NOW - 25 * 3_600_000) });
    expect(await plan(old)).toMatchObject({ kind: 'move', to: 'superseded', forget: true });
  });
});

describe('a push in doubt', () => {
  it('holds back a different price for the offer until it is told', async () => {
    ddb.on(QueryCommand).resolves({
      Items: [
        { sk: CHANGE_SK, record: { status: 'pending' } },
        { sk: 'PC#1#O-1#00000000', pushToken: 't', record: { status: 'pending' } },
      ],
    });
    expect(await plan()).toMatchObject({ kind: 'wait' });
  });

  it('is told before the kill switch turns it back (it may have landed)', async () => {
    const inDoubt = sendable({ pushToken: 't', pushStartedAt: iso(NOW - 10 * MINUTE), retryAt: iso(NOW - 1_000) });
    expect(await plan(inDoubt, productWith(known(1_000), 90), open(connection({ mode: 'suggest' })))).toMatchObject({ kind: 'doubt' });
  });

  it('ends with the connection deleted saying it may have landed (the key is gone, it cannot be told)', async () => {
    const inDoubt = sendable({ pushToken: 't', pushStartedAt: iso(NOW - 10 * MINUTE) });
    expect(await plan(inDoubt, productWith(known(1_000), 90), { kind: 'gone' })).toMatchObject({
      kind: 'move',
      to: 'failed',
      reason: expect.stringMatching(/may have reached the marketplace/) as unknown,
    });
  });
});
