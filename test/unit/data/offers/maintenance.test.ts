import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { offerKey, offerLookupKey } from '../../../../lambdas/data/table/keys.js';
import { OFFER_LIST, offerRecordOf, storedOffer as storedOfferSchema, type StoredOffer } from '../../../../lambdas/data/offers/list.js';
import { hintOf, reconcileBatch, type OfferHint } from '../../../../lambdas/data/offers/maintenance.js';
import { deleteOffers, upsertOffers, type OfferInput } from '../../../../lambdas/data/offers/write.js';
import { recordOfListing } from '../../../../lambdas/data/lists/ranked/listings.js';
import { BUCKET_MAX } from '../../../../lambdas/data/lists/ranked/rebalance.js';
import { totalOf } from '../../../../lambdas/data/lists/ranked/nodes.js';
import type { OfferFields } from '../../../../lambdas/domain/records.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { nodeDiscrepancies } from '../../../support/rank-check.js';
import { FakeTable, TABLE } from '../fake-table.js';
import { offerFields, product, productItem } from '../fixtures.js';
import { listState } from '../lists/ranked/seed-list.js';

const ddb = mockClient(DynamoDBDocumentClient);
const OWNER = { clientId: 'c1', sellerId: 'seller-own', defaultConnector: 'takealot' };
const PRODUCT = product();

let table: FakeTable;
let seq = 100;

const input = (offerId: string, overrides: Partial<OfferFields> = {}, productCode = 'SKU-1'): OfferInput => ({
  ...offerFields({ offer_id: offerId, url: `https://market.example/${offerId}`, ...overrides }),
  product_code: productCode,
});
const canonical = (offerId: string, productCode = 'SKU-1'): StoredOffer | undefined => {
  const item = table.get(offerKey('c1', productCode, offerId));
  return item ? storedOfferSchema.parse(item) : undefined;
};
const hint = (offerId: string, productCode = 'SKU-1'): OfferHint => {
  const offer = canonical(offerId, productCode);
  return offer ? hintOf(offer) : { offerId, productCode, cells: [] };
};
/** Runs the maintainer's pass over `hints` as the next message. */
const maintain = (hints: OfferHint[], products: string[] = []) => reconcileBatch('c1', { offers: hints, products }, String(++seq));

/** Listed offers by cell, as `offer_id` lists. */
const listedByCell = () => {
  const cells: Record<string, string[]> = {};
  for (const item of table.withPrefix('T#c1#OL#')) (cells[String(item.cell)] ??= []).push(recordOfListing(OFFER_LIST, item).offer_id);
  for (const ids of Object.values(cells)) ids.sort();
  return cells;
};
const expectExactNodes = () => {
  const { places, nodes } = listState(table, 'c1', OFFER_LIST);
  expect(nodeDiscrepancies(OFFER_LIST, places, nodes)).toEqual([]);
};
const nodeTotals = () => listState(table, 'c1', OFFER_LIST).nodes.get('id')!.chunks.map(totalOf);

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  table = new FakeTable([productItem(PRODUCT), productItem(product({ id: 12, code: 'SKU-2' }))]).serve(ddb);
});

describe('reconcileBatch', () => {
  it('lists new offers in their cells with the product nested, counts them, and records where each is listed', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A'), input('B', { competitiveness: 'losing' }), input('C', { seller_id: 'seller-x' })]);

    // Act
    const moved = await maintain(['A', 'B', 'C'].map((id) => hint(id)));

    // Assess
    expect(moved).toBe(3);
    expect(listedByCell()).toEqual({ 'own|winning': ['A'], 'own|losing': ['B'], 'other|winning': ['C'] });
    const [listing] = table.partition('T#c1#OL#own|losing');
    expect(recordOfListing(OFFER_LIST, listing!)).toEqual(offerRecordOf(canonical('B')!, PRODUCT));
    expect(table.get(offerLookupKey('c1', 'C'))?.listedCell).toBe('other|winning');
    expect(nodeTotals()).toEqual([3]);
    expectExactNodes();
  });

  it('moves an offer between cells when its competitiveness or seller changes, and re-sorts it when its price changes', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A'), input('B')]);
    await maintain([hint('A'), hint('B')]);

    // Act
    await upsertOffers(OWNER, [input('A', { competitiveness: 'losing' }), input('B', { seller_id: 'seller-x', offer_price: 12 })]);
    await maintain([hint('A'), hint('B')]);

    // Assess
    expect(listedByCell()).toEqual({ 'own|losing': ['A'], 'other|winning': ['B'] });
    expect(table.get(offerLookupKey('c1', 'A'))?.listedCell).toBe('own|losing');
    expect(nodeTotals()).toEqual([2]);
    expectExactNodes();
  });

  it('takes a deleted offer out of its listing and its counts', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A'), input('B')]);
    await maintain([hint('A'), hint('B')]);

    // Act
    await deleteOffers('c1', ['A']);
    await maintain([{ offerId: 'A', productCode: 'SKU-1', cells: ['own|winning'] }]);

    // Assess
    expect(listedByCell()).toEqual({ 'own|winning': ['B'] });
    expect(table.get(offerLookupKey('c1', 'A'))?.listedCell).toBeUndefined();
    expect(nodeTotals()).toEqual([1]);
    expectExactNodes();
  });

  it('follows an offer that moved to another product, from the hint of either product', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A')]);
    await maintain([hint('A')]);

    // Act: the change stream names the old item (deleted) and the new one
    await upsertOffers(OWNER, [input('A', {}, 'SKU-2')]);
    await maintain([{ offerId: 'A', productCode: 'SKU-1', cells: ['own|winning'] }, hint('A', 'SKU-2')]);

    // Assess
    const [listing] = table.partition('T#c1#OL#own|winning');
    expect(recordOfListing(OFFER_LIST, listing!).product.code).toBe('SKU-2');
    expect(nodeTotals()).toEqual([1]);
    expectExactNodes();
  });

  it('gives every listed offer the new copy of a product that changed', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A'), input('B', { seller_id: 'seller-x' })]);
    await maintain([hint('A'), hint('B')]);
    table.put(productItem(product({ title: 'Kettle, renamed' })));

    // Act
    await maintain([], ['SKU-1']);

    // Assess
    const titles = table.withPrefix('T#c1#OL#').map((item) => recordOfListing(OFFER_LIST, item).product.title);
    expect(titles).toEqual(['Kettle, renamed', 'Kettle, renamed']);
    expectExactNodes();
  });

  it('does not list an offer whose product does not exist', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A', {}, 'SKU-9')]);

    // Act
    const moved = await maintain([hint('A', 'SKU-9')]);

    // Assess
    expect(moved).toBe(0);
    expect(listedByCell()).toEqual({});
  });

  it('has nothing to do for an offer created and deleted before its changes were maintained', async () => {
    // Prepare: both changes reach the maintainer in one message
    await upsertOffers(OWNER, [input('A')]);
    const created = hint('A');
    await deleteOffers('c1', ['A']);

    // Act
    const moved = await maintain([created, { offerId: 'A', productCode: 'SKU-1', cells: ['own|winning'] }]);

    // Assess
    expect(moved).toBe(0);
    expect(listedByCell()).toEqual({});
    expect(table.withPrefix('T#c1#OLN#')).toEqual([]);
  });

  it('changes nothing for a change delivered again later', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A'), input('B')]);
    await maintain([hint('A'), hint('B')]);
    const before = JSON.stringify([...table.items.entries()].sort());
    ddb.resetHistory();

    // Act
    const moved = await maintain([hint('A'), hint('B')]);

    // Assess
    expect(moved).toBe(0);
    expect(JSON.stringify([...table.items.entries()].sort())).toBe(before);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });

  it('counts a message once when it is retried after failing between its counts and its listings', async () => {
    // Prepare: the listing write of the first delivery fails, after the node counts were written
    await upsertOffers(OWNER, [input('A'), input('B', { competitiveness: 'losing' })]);
    const hints = [hint('A'), hint('B')];
    let failures = 1;
    table.intercept = (command, request) => {
      const writes = (request as { RequestItems?: Record<string, { PutRequest?: { Item: { entity?: string } } }[]> }).RequestItems?.[TABLE] ?? [];
      if (command === 'BatchWrite' && writes.some((w) => w.PutRequest?.Item.entity === 'offerListing') && failures-- > 0) {
        throw Object.assign(new Error('Internal server error'), { name: 'InternalServerError' });
      }
    };

    // Act: the same message (same sequence number) twice
    await expect(reconcileBatch('c1', { offers: hints, products: [] }, '500')).rejects.toThrow('Internal server error');
    expect(nodeTotals()).toEqual([2]);
    await reconcileBatch('c1', { offers: hints, products: [] }, '500');

    // Assess
    expect(listedByCell()).toEqual({ 'own|winning': ['A'], 'own|losing': ['B'] });
    expect(nodeTotals()).toEqual([2]);
    expectExactNodes();
  });

  it('keeps counts exact and buckets within their size as a tenant grows past a bucket', async () => {
    // Prepare
    const offers = Array.from({ length: 130 }, (_, i) => input(`O${String(i).padStart(3, '0')}`, { total_competitors: i % 9, offer_price: 10 + (i % 13) }));
    await upsertOffers(OWNER, offers);

    // Act: in messages of 40, as the forwarder might send them
    for (let i = 0; i < offers.length; i += 40) await maintain(offers.slice(i, i + 40).map((o) => hint(o.offer_id)));

    // Assess
    const { nodes } = listState(table, 'c1', OFFER_LIST);
    for (const { buckets } of nodes.values()) {
      expect(buckets.length).toBeGreaterThan(1);
      expect(Math.max(...buckets.map(totalOf))).toBeLessThanOrEqual(BUCKET_MAX);
    }
    expect(nodeTotals()).toEqual([130]);
    expectExactNodes();
  });
});
