/**
 * The account purge against an in-memory table: it finds every item of the tenant by key from
 * the tenant's own data (no Scan), deletes canonical items before what is derived from them,
 * repeats until a pass finds nothing, and never touches a neighbour.
 */
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  connectionKey,
  connectionUidKey,
  deliveryKey,
  importBodyKey,
  importKey,
  marketplaceEventKey,
  nodePartition,
  offerKey,
  offerLookupKey,
  priceChangePartition,
  productKey,
  productsDirectory,
  rebuildKey,
  repricerKey,
  repricerSlotKey,
  webhookCountKey,
  webhookKey,
  productScope,
} from '../../../lambdas/data/table/keys.js';
import { PRICE_CHANGE_LIST, PRODUCT_PRICE_CHANGE_LIST } from '../../../lambdas/data/price-changes/list.js';
import { listingKey } from '../../../lambdas/data/lists/ranked/listings.js';
import { addToNode, emptyNode, FIRST_BOUND, nodeItem } from '../../../lambdas/data/lists/ranked/nodes.js';
import { REPRICER_LIST } from '../../../lambdas/data/repricers/list.js';
import { OFFER_LIST } from '../../../lambdas/data/offers/list.js';
import { idKey } from '../../../lambdas/data/table/sort-keys.js';
import { purgeTenant } from '../../../tools/admin/purge.js';
import { FakeTable, TABLE } from '../data/fake-table.js';

const ddb = mockClient(DynamoDBDocumentClient);
type Item = Record<string, unknown>;

/** A rank node counting one item in `cell`: the only place that cell's listing partition is named. */
const node = (pk: string, cell: string): Item => {
  const counted = emptyNode(FIRST_BOUND, false);
  addToNode(counted, cell, undefined, 1);
  return nodeItem(pk, { ...counted, v: 1 });
};

/**
 * One tenant's items of every kind, each reachable only the way the purge must reach it: a
 * product through the directory, a product gone from it through an offer lookup, price changes
 * through the tenant-wide list's origins, repricers through slots and listings, listing cells
 * through node counts, import bodies through jobs, deliveries through webhooks.
 */
const tenantItems = (clientId: string): Item[] => {
  const scope = productScope(clientId, 'X');
  return [
    { ...productKey(clientId, 'X'), entity: 'product', dirPk: productsDirectory(clientId), dirSk: 'X' },
    { ...offerKey(clientId, 'X', 'm-1'), entity: 'offer' },
    { ...repricerSlotKey(clientId, 'X', 'amazon'), repricerId: 7 },
    { ...repricerKey(clientId, 7), entity: 'repricer' },
    { ...repricerKey(clientId, 9), entity: 'repricer' },
    { ...listingKey(clientId, REPRICER_LIST, 'off', 9), cell: 'off' },
    node(nodePartition(clientId, REPRICER_LIST.tag, 'id', 'c'), 'off'),
    { pk: priceChangePartition(clientId, 'X'), sk: 'change-1', entity: 'priceChange' },
    node(nodePartition(scope, PRODUCT_PRICE_CHANGE_LIST.tag, 'id', 'b'), '7|undercut'),
    { ...listingKey(scope, PRODUCT_PRICE_CHANGE_LIST, '7|undercut', 1), cell: '7|undercut' },
    // A product no longer in the directory: its offer and price change are found anyway.
    { ...offerLookupKey(clientId, 'm-2'), productCode: 'Z', id: 2, listedCell: 'other|low' },
    { ...offerKey(clientId, 'Z', 'm-2'), entity: 'offer' },
    { ...listingKey(clientId, OFFER_LIST, 'other|low', 2), cell: 'other|low' },
    { pk: priceChangePartition(clientId, 'Y'), sk: 'change-3', entity: 'priceChange' },
    { ...listingKey(clientId, PRICE_CHANGE_LIST, 'undercut', 3), cell: 'undercut', origin: { pk: priceChangePartition(clientId, 'Y'), sk: 'change-3' } },
    // An offer cell named by nothing but a node's count.
    node(nodePartition(clientId, OFFER_LIST.tag, 'offer_price', 'b'), 'own|odd'),
    { ...listingKey(clientId, OFFER_LIST, 'own|odd', 5), cell: 'own|odd' },
    { ...importKey(clientId, idKey(41)), entity: 'importJob' },
    { ...importBodyKey(clientId, 41, 0), entity: 'importBody' },
    { ...webhookKey(clientId, 4), entity: 'webhook' },
    { ...webhookCountKey(clientId), count: 1 },
    { ...deliveryKey(clientId, 4, '2026-01-01T00:00:00.000Z', 'e-1'), entity: 'delivery' },
    { ...rebuildKey(clientId, 'r-1'), status: 'done' },
    // A marketplace connection, and its uid lookup outside the tenant's keys.
    { ...connectionKey(clientId, 'takealot'), entity: 'connection', record: { uid: `uid-${clientId}` } },
    { ...connectionUidKey(`uid-${clientId}`), entity: 'connectionUid', clientId },
    // A marketplace event received for the connection: found through the connection's uid.
    { ...marketplaceEventKey(clientId, `uid-${clientId}`, 'delivery-1'), entity: 'marketplaceEvent' },
  ];
};

const NEIGHBOUR = 'abd';
let table: FakeTable;

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  table = new FakeTable([...tenantItems('abc'), ...tenantItems(NEIGHBOUR), { pk: 'CLIENT#alice', sk: 'CLIENT' }]).serve(ddb);
});

/** The list maintainer's late recount of the repricer list: a node put back after the first batch of deletes, when `when` says. */
const writeBackAfterFirstDeletes = (when: (put: () => void) => void): void => {
  const late = node(nodePartition('abc', REPRICER_LIST.tag, 'updated_at', 'b'), 'on');
  let written = false;
  table.intercept = (command) => {
    if (command === 'BatchWrite' && !written) {
      written = true;
      when(() => table.put(late));
    }
  };
};

describe('purgeTenant', () => {
  it("deletes every item of the tenant, found by key from its own data, and nothing of the neighbour's", async () => {
    // Prepare
    const neighbour = table.withPrefix(`T#${NEIGHBOUR}#`);
    const progress: { pass: number; scanned: number; deleted: number }[] = [];

    // Act
    const result = await purgeTenant('abc', { settle: async () => {}, onProgress: (p) => progress.push(p) });

    // Assess
    expect(table.withPrefix('T#abc#')).toEqual([]);
    expect(table.withPrefix(`T#${NEIGHBOUR}#`)).toEqual(neighbour);
    expect(table.get({ pk: 'CLIENT#alice', sk: 'CLIENT' })).toBeDefined();
    expect(table.get(connectionUidKey('uid-abc'))).toBeUndefined();
    expect(table.get(connectionUidKey(`uid-${NEIGHBOUR}`))).toBeDefined();
    expect(result).toEqual({ deleted: tenantItems('abc').length, passes: 2 });
    expect(progress.map(({ pass, deleted }) => ({ pass, deleted }))).toEqual([
      { pass: 1, deleted: tenantItems('abc').length },
      { pass: 2, deleted: tenantItems('abc').length },
    ]);
    expect(progress[0]!.scanned).toBeGreaterThanOrEqual(tenantItems('abc').length);
    expect(ddb.commandCalls(ScanCommand)).toHaveLength(0);
  });

  it('deletes canonical items first, then listings, then the nodes counting them, then offer lookups', async () => {
    // Prepare
    const deleted: string[] = [];
    table.intercept = (command, input) => {
      if (command !== 'BatchWrite') return;
      const requests = Object.values(input.RequestItems as Record<string, { DeleteRequest?: { Key: Item } }[]>).flat();
      for (const request of requests) {
        const item = table.get(request.DeleteRequest!.Key);
        deleted.push(
          item?.entity === 'rankNode'
            ? 'node'
            : item?.cell !== undefined
              ? 'listing'
              : item?.productCode !== undefined || item?.entity === 'connectionUid'
                ? 'lookup'
                : 'canonical',
        );
      }
    };

    // Act
    await purgeTenant('abc', { settle: async () => {} });

    // Assess
    const firstOf = (kind: string) => deleted.indexOf(kind);
    const lastOf = (kind: string) => deleted.lastIndexOf(kind);
    expect(lastOf('canonical')).toBeLessThan(firstOf('listing'));
    expect(lastOf('listing')).toBeLessThan(firstOf('node'));
    expect(lastOf('node')).toBeLessThan(firstOf('lookup'));
  });

  it('passes again when the list maintainer writes a node back meanwhile, until a pass finds nothing', async () => {
    // Prepare: the first batch of deletes is answered by a late recount of the repricer list
    writeBackAfterFirstDeletes((put) => put());
    const pauses: number[] = [];

    // Act
    const result = await purgeTenant('abc', { settle: async () => void pauses.push(1) });

    // Assess
    expect(result).toEqual({ deleted: tenantItems('abc').length + 1, passes: 3 });
    expect(pauses).toHaveLength(2);
    expect(table.withPrefix('T#abc#')).toEqual([]);
  });

  it('waits between passes by a pause that doubles, without a settle to observe, and ends only after a whole settleMs of quiet', async () => {
    // Act
    const started = Date.now();
    const result = await purgeTenant('abc', { settleMs: 300 });

    // Assess: 100 ms between the pass that deleted and the first empty one, then 300 ms before the one that confirms it
    expect(result.passes).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('without a settle to observe, finds what the maintainer writes back later than the first short pause', async () => {
    // Prepare: a node written back 150 ms after the first deletes, past the first pause of 100 ms
    writeBackAfterFirstDeletes((put) => setTimeout(put, 150));

    // Act
    const result = await purgeTenant('abc', { settleMs: 300 });

    // Assess
    expect(result.deleted).toBe(tenantItems('abc').length + 1);
    expect(table.withPrefix('T#abc#')).toEqual([]);
  });

  it('does not end before `quietFrom` (a stage: the disabled client may still pass on a cached authorization)', async () => {
    // Act
    const started = Date.now();
    const result = await purgeTenant('abc', { settle: async () => {}, quietFrom: started + 300 });

    // Assess
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(result).toEqual({ deleted: tenantItems('abc').length, passes: 3 });
  });

  it('gives up after its passes when something keeps writing for the tenant', async () => {
    // Prepare
    let id = 100;
    table.intercept = (command) => {
      if (command === 'BatchWrite') table.put({ ...listingKey('abc', REPRICER_LIST, 'on', id++), cell: 'on' });
    };

    // Act & Assess
    await expect(purgeTenant('abc', { maxPasses: 3, settle: async () => {} })).rejects.toThrow('still had items after 3 passes');
  });
});
