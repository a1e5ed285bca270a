import { marshall } from '@aws-sdk/util-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AttributeValue } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { streamChangeOf } from '../../../../lambdas/data/stream/records.js';
import type { PriceChangeHint } from '../../../../lambdas/data/price-changes/maintenance.js';
import { listingPartition, priceChangePartition, productScope } from '../../../../lambdas/data/table/keys.js';
import {
  parsePriceChangeCell,
  parseProductChangeCell,
  PRICE_CHANGE_CELLS,
  PRICE_CHANGE_LIST,
  priceChangeSourceDigest,
  PRODUCT_PRICE_CHANGE_LIST,
  type StoredPriceChange,
} from '../../../../lambdas/data/price-changes/list.js';
import { reconcilePriceChanges } from '../../../../lambdas/data/price-changes/maintenance.js';
import { applyBatched } from '../../../../lambdas/data/lists/ranked/apply-batched.js';
import { listingKey, recordOfListing } from '../../../../lambdas/data/lists/ranked/listings.js';
import type { RankedList } from '../../../../lambdas/data/lists/ranked/ranked-list.js';
import type { PriceChange, PriceChangeStatus } from '../../../../lambdas/domain/records.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { nodeDiscrepancies } from '../../../support/rank-check.js';
import { FakeTable, TABLE } from '../fake-table.js';
import { listState } from '../lists/ranked/seed-list.js';

/**
 * The price-change lists follow a price change's status: the stream's hint names the cells of
 * the item before and after a write, and the maintainer leaves exactly one listing of it, in
 * the cell of its status now, in both the tenant's list and its product's, with exact counts.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const CLIENT = 'c1';
const CODE = 'SKU/1';
const SK = 'PC#7#OWN#00000001';
const KEY = { pk: priceChangePartition(CLIENT, CODE), sk: SK };

let table: FakeTable;
let seq = 100;

const record = (status: PriceChangeStatus, overrides: Partial<PriceChange> = {}): PriceChange => ({
  id: 42,
  uid: '9b0e6c2d-1f4a-4e8b-a3c5-7d2f1e0b9a61',
  repricer_id: 7,
  offer_id: 'OWN',
  product_code: CODE,
  connector: 'takealot',
  old_price: 50,
  new_price: 44,
  reason: 'undercut',
  lowest_competitor_price: 45,
  competitor_offer_id: 'C-1',
  status,
  status_reason: null,
  sent_price: null,
  sent_at: null,
  applied_at: null,
  explanation: null,
  created_at: '2026-11-22T10:15:30.123Z',
  updated_at: '2026-11-22T10:15:30.123Z',
  ...overrides,
});
const canonicalItem = (status: PriceChangeStatus) => ({ ...KEY, entity: 'priceChange', sv: 2, record: record(status), expiresAt: 1_900_000_000 });
/** An item as the first version wrote it: no status, nothing of the sending. */
const firstVersionItem = () => {
  const {
    status: _status,
    status_reason: _reason,
    sent_price: _price,
    sent_at: _sent,
    applied_at: _applied,
    updated_at: _updated,
    ...old
  } = record('suggested');
  return { ...KEY, entity: 'priceChange', sv: 1, record: old, expiresAt: 1_900_000_000 };
};

type Image = Record<string, AttributeValue>;
const image = (item: Record<string, unknown> | undefined): Image | undefined => (item ? (marshall(item) as Image) : undefined);
/** The hint the stream gives for a write from `before` to `after`, and the table as the write left it. */
const write = (before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): PriceChangeHint => {
  if (after) table.put(after);
  else table.delete(KEY);
  const change = streamChangeOf(image(KEY), image(before), image(after));
  if (change?.kind !== 'priceChange') throw new Error(`Not a price change: ${JSON.stringify(change)}`);
  return change.hint;
};
const maintain = (...hints: PriceChangeHint[]) => reconcilePriceChanges(CLIENT, hints, String(++seq));

/** Listed ids and statuses by cell, in the tenant's list and the product's. */
const listed = () => {
  const byCell = (prefix: string, list: RankedList<StoredPriceChange, PriceChange>) => {
    const cells: Record<string, string[]> = {};
    for (const item of table.withPrefix(prefix))
      (cells[String(item.cell)] ??= []).push(`${recordOfListing(list, item).id}:${recordOfListing(list, item).status}`);
    return cells;
  };
  return {
    tenant: byCell(listingPartition(CLIENT, PRICE_CHANGE_LIST.tag, ''), PRICE_CHANGE_LIST),
    product: byCell(listingPartition(productScope(CLIENT, CODE), PRODUCT_PRICE_CHANGE_LIST.tag, ''), PRODUCT_PRICE_CHANGE_LIST),
  };
};
const expectExactNodes = () => {
  for (const [scope, list] of [
    [CLIENT, PRICE_CHANGE_LIST],
    [productScope(CLIENT, CODE), PRODUCT_PRICE_CHANGE_LIST],
  ] as const) {
    const { places, nodes } = listState(table, scope, list);
    expect(nodeDiscrepancies(list, places, nodes)).toEqual([]);
  }
};

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  table = new FakeTable().serve(ddb);
});

describe('price-change cells', () => {
  it('are status and reason in the tenant list, repricer, status and reason in a product list; legacy cells read as suggested', () => {
    const stored: StoredPriceChange = { entity: 'priceChange', sv: 2, record: record('failed', { reason: 'floor' }) };
    expect(PRICE_CHANGE_LIST.cellOf(stored)).toBe('failed|floor');
    expect(PRODUCT_PRICE_CHANGE_LIST.cellOf(stored)).toBe('7|failed|floor');
    expect(parsePriceChangeCell('failed|floor')).toEqual({ status: 'failed', reason: 'floor' });
    expect(parsePriceChangeCell('floor')).toEqual({ status: 'suggested', reason: 'floor' });
    expect(parseProductChangeCell('7|failed|floor')).toEqual({ repricerId: '7', status: 'failed', reason: 'floor' });
    expect(parseProductChangeCell('7|floor')).toEqual({ repricerId: '7', status: 'suggested', reason: 'floor' });
    // 6 statuses x 6 reasons, and the 4 legacy cells (of the reasons there were then).
    expect(PRICE_CHANGE_CELLS).toHaveLength(40);
    expect(PRICE_CHANGE_CELLS).toEqual(expect.arrayContaining(['suggested|undercut', 'superseded|no_competition', 'undercut']));
  });
});

describe('the stream hint of a price change', () => {
  it.each<[string, Record<string, unknown> | undefined, Record<string, unknown> | undefined, string[]]>([
    ['created', undefined, canonicalItem('suggested'), ['suggested|undercut']],
    ['whose status moved', canonicalItem('suggested'), canonicalItem('pending'), ['suggested|undercut', 'pending|undercut']],
    ['changed within its status', canonicalItem('sent'), { ...canonicalItem('sent'), pushToken: 't' }, ['sent|undercut']],
    ['expired', canonicalItem('applied'), undefined, ['applied|undercut']],
    ['of the first version, moved', firstVersionItem(), canonicalItem('pending'), ['suggested|undercut', 'undercut', 'pending|undercut']],
  ])('names the cells of both images of one %s', (_case, before, after, cells) => {
    expect(write(before, after)).toEqual({ productCode: CODE, sk: SK, id: 42, repricerId: 7, cells });
  });
});

describe('reconcilePriceChanges', () => {
  it('lists a new price change in the cell of its status, in both lists', async () => {
    // Act
    const moved = await maintain(write(undefined, canonicalItem('suggested')));

    // Assert
    expect(moved).toBe(2);
    expect(listed()).toEqual({ tenant: { 'suggested|undercut': ['42:suggested'] }, product: { '7|suggested|undercut': ['42:suggested'] } });
    expectExactNodes();
  });

  it('moves the listing when the status moves, and a hint delivered again or late changes nothing', async () => {
    // Arrange
    const created = write(undefined, canonicalItem('suggested'));
    await maintain(created);

    // Act
    const applied = write(canonicalItem('suggested'), canonicalItem('pending'));
    const movedOnce = await maintain(applied);
    const after = listed();
    ddb.resetHistory();
    const movedAgain = await maintain(applied, created);

    // Assert
    expect(movedOnce).toBe(2);
    expect(after).toEqual({ tenant: { 'pending|undercut': ['42:pending'] }, product: { '7|pending|undercut': ['42:pending'] } });
    expect(movedAgain).toBe(0);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
    expect(listed()).toEqual(after);
    expectExactNodes();
  });

  it('is listed in one cell or both at every moment of a move, never in none: the new listing is written before the old is deleted', async () => {
    // Arrange
    await maintain(write(undefined, canonicalItem('suggested')));
    ddb.resetHistory();

    // Act
    await maintain(write(canonicalItem('suggested'), canonicalItem('pending')));

    // Assert: the call that puts the new cell's listing comes before the one that deletes the old.
    const calls = ddb.commandCalls(BatchWriteCommand).map((call) => JSON.stringify(call.args[0].input.RequestItems));
    const newListing = listingKey(CLIENT, PRICE_CHANGE_LIST, 'pending|undercut', 42);
    const oldListing = listingKey(CLIENT, PRICE_CHANGE_LIST, 'suggested|undercut', 42);
    const putAt = calls.findIndex((call) => call.includes(`"PutRequest":{"Item":{"pk":"${newListing.pk}","sk":"${newListing.sk}"`));
    const deleteAt = calls.findIndex((call) => call.includes(`"DeleteRequest":{"Key":{"pk":"${oldListing.pk}","sk":"${oldListing.sk}"}`));
    expect(putAt).toBeGreaterThanOrEqual(0);
    expect(deleteAt).toBeGreaterThan(putAt);
  });

  it('lands in the current cell from a batch that holds several moves of one price change, counted once', async () => {
    // Arrange
    const created = write(undefined, canonicalItem('suggested'));

    // Act: created, applied and sent before the maintainer saw any of it
    const applied = write(canonicalItem('suggested'), canonicalItem('pending'));
    const sent = write(canonicalItem('pending'), canonicalItem('sent'));
    await maintain(created, applied, sent);

    // Assert
    expect(listed()).toEqual({ tenant: { 'sent|undercut': ['42:sent'] }, product: { '7|sent|undercut': ['42:sent'] } });
    expectExactNodes();
  });

  it('unlists an expired price change from the cell it was in', async () => {
    // Arrange
    await maintain(write(undefined, canonicalItem('suggested')));
    await maintain(write(canonicalItem('suggested'), canonicalItem('failed')));

    // Act
    await maintain(write(canonicalItem('failed'), undefined));

    // Assert
    expect(listed()).toEqual({ tenant: {}, product: {} });
    expectExactNodes();
  });

  it('moves a listing written before statuses out of its legacy cell when its item moves', async () => {
    // Arrange: the first version's listings, in the cell of the reason alone
    table.put(firstVersionItem());
    const legacy = <L extends RankedList<StoredPriceChange, PriceChange>>(list: L, cellOf: (stored: StoredPriceChange) => string): L => ({ ...list, cellOf });
    const stored: StoredPriceChange = { entity: 'priceChange', sv: 2, record: record('suggested') };
    const target = { source: stored, record: stored.record, src: priceChangeSourceDigest(stored), origin: KEY };
    await applyBatched(
      CLIENT,
      legacy(PRICE_CHANGE_LIST, (s) => s.record.reason),
      [{ target }],
      '1',
    );
    await applyBatched(
      productScope(CLIENT, CODE),
      legacy(PRODUCT_PRICE_CHANGE_LIST, (s) => `7|${s.record.reason}`),
      [{ target }],
      '1',
    );
    expect(listed()).toEqual({ tenant: { undercut: ['42:suggested'] }, product: { '7|undercut': ['42:suggested'] } });

    // Act: the client applies it (transitionPriceChange writes version 2)
    await maintain(write(firstVersionItem(), canonicalItem('pending')));

    // Assert
    expect(listed()).toEqual({ tenant: { 'pending|undercut': ['42:pending'] }, product: { '7|pending|undercut': ['42:pending'] } });
    expectExactNodes();
  });
});
