/**
 * `npm run cli -- rebuild`: a tenant whose derived items (offer and repricer listings and rank
 * nodes) were deleted or corrupted is rebuilt from its canonical items, by the list maintainer
 * running from the table's stream, to exactly the pages and totals it served before.
 */
import { BatchWriteCommand, PutCommand, QueryCommand, UpdateCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { nodeDiscrepancies, type OrderNodes } from '../support/rank-check.js';
import { bySize } from '../support/profile.js';
import { fcParameters, fcRuns } from '../support/seed.js';

type Item = Record<string, NativeAttributeValue>;

let api: TestApi;
const username = 'rebuilt';
const auth: [string, string] = [username, 'rebuilt-password-1'];
const OWN = 'seller-rebuilt';
const COMPETITIVENESS = ['high', 'medium', 'low'];
const PRODUCTS = Array.from({ length: 12 }, (_, i) => `RB-${i}`);
const CONNECTORS = ['amazon', 'ebay', 'takealot'];
/** Offers of the tenant: more than a page of 100 and than a rank bucket holds (48); 160 under `npm run test:full`. */
const OFFERS = bySize(130, 160);

/** What the API serves, as the test reads it: every response of these requests. */
const OFFER_QUERIES = [
  '',
  '?_include_other_offers=true&_limit=100',
  '?_include_other_offers=true&_limit=100&_start=100',
  '?_include_other_offers=true&_sort=offer_price:DESC&_limit=37&_start=20',
  '?competitiveness=medium&_sort=updated_at',
  '?total_competitors_gte=7&_sort=total_competitors:DESC&_include_other_offers=true',
  '?total_competitors_gte=3&competitiveness=low&_sort=offer_price&_start=5&_limit=9',
  '?_sort=id:DESC&_start=40&_limit=25',
];
const REPRICER_QUERIES = ['', '?enabled=true', '?enabled=false&_sort=updated_at:DESC', '?_sort=created_at:DESC&_start=10&_limit=7', '?product_code=RB-3'];

const served = async () => {
  const pages: Record<string, { status: number; body: unknown }> = {};
  for (const query of OFFER_QUERIES) pages[`offers${query}`] = await api.request('GET', `/v1/offers${query}`, { auth });
  for (const query of REPRICER_QUERIES) pages[`repricers${query}`] = await api.request('GET', `/v1/repricers${query}`, { auth });
  for (const id of [1, 50, 120]) pages[`offer ${id}`] = await api.request('GET', `/v1/offers/${id}`, { auth });
  return Object.fromEntries(Object.entries(pages).map(([key, response]) => [key, { status: response.status, body: response.body }]));
};

const data = async () => ({
  dynamo: await import('../../lambdas/data/table/dynamo.js'),
  keys: await import('../../lambdas/data/table/keys.js'),
  offerList: await import('../../lambdas/data/offers/list.js'),
  repricerList: await import('../../lambdas/data/repricers/list.js'),
  nodes: await import('../../lambdas/data/lists/ranked/node-store.js'),
  recount: await import('../../lambdas/data/lists/ranked/recount.js'),
  sortKeys: await import('../../lambdas/data/table/sort-keys.js'),
  rebuild: await import('../../tools/admin/rebuild.js'),
});
let d: Awaited<ReturnType<typeof data>>;
let clientId: string;

/** Every derived partition of the tenant: listing cells and node partitions of both lists. */
const derivedPartitions = () => {
  const { OFFER_LIST, offerCell } = d.offerList;
  const { REPRICER_LIST, repricerCell } = d.repricerList;
  const offerCells = COMPETITIVENESS.flatMap((comp) => [offerCell('own', comp), offerCell('other', comp)]);
  return {
    listings: [
      ...offerCells.map((cell) => ({ tag: OFFER_LIST.tag, cell, pk: d.keys.listingPartition(clientId, OFFER_LIST.tag, cell) })),
      ...[true, false].map((on) => ({
        tag: REPRICER_LIST.tag,
        cell: repricerCell(on),
        pk: d.keys.listingPartition(clientId, REPRICER_LIST.tag, repricerCell(on)),
      })),
    ],
    nodes: [OFFER_LIST, REPRICER_LIST].flatMap((list) =>
      Object.keys(list.orders).flatMap((order) =>
        (['b', 'c'] as const).map((level) => ({ tag: list.tag, pk: d.keys.nodePartition(clientId, list.tag, order, level) })),
      ),
    ),
  };
};

const partitionItems = async (pk: string): Promise<Item[]> => {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await d.dynamo.documentClient.send(
      new QueryCommand({
        TableName: d.dynamo.tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

const deleteItems = async (items: readonly Item[]) => {
  for (let i = 0; i < items.length; i += 25) {
    await d.dynamo.documentClient.send(
      new BatchWriteCommand({
        RequestItems: { [d.dynamo.tableName()]: items.slice(i, i + 25).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } })) },
      }),
    );
  }
};
const put = (item: Item) => d.dynamo.documentClient.send(new PutCommand({ TableName: d.dynamo.tableName(), Item: item }));

/** Nodes and listing places of both lists, and what is wrong with their counts. */
const countProblems = async () => {
  const problems: string[] = [];
  for (const list of [d.offerList.OFFER_LIST, d.repricerList.REPRICER_LIST] as const) {
    const cells = derivedPartitions()
      .listings.filter((partition) => partition.tag === list.tag)
      .map((partition) => partition.cell);
    const places = await d.recount.readAllPlaces(clientId, list as never, cells);
    const nodes = new Map<string, OrderNodes>();
    for (const order of Object.keys(list.orders)) {
      const at = (level: 'b' | 'c') => ({ clientId, tag: list.tag, order, level });
      nodes.set(order, {
        buckets: await d.nodes.readNodes(at('b'), {}, { consistent: true }),
        chunks: await d.nodes.readNodes(at('c'), {}, { consistent: true }),
      });
    }
    problems.push(...nodeDiscrepancies(list as never, places, nodes).map((problem) => `${list.entity} ${problem}`));
  }
  return problems;
};

const rebuild = async () => {
  const request = await d.rebuild.rebuildClient(username);
  await api.settle();
  return request;
};

/** One random change to the derived items; `pick` chooses among what exists. */
const damage = fc.oneof(
  fc.record({ kind: fc.constant('count' as const), pick: fc.nat(), delta: fc.integer({ min: -5, max: 5 }).filter((n) => n !== 0) }),
  fc.record({ kind: fc.constant('deleteNode' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('deleteListing' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('moveKey' as const), pick: fc.nat(), key: fc.stringMatching(/^[0-9a-z]{4,16}$/), g: fc.integer({ min: 0, max: 40 }) }),
  fc.record({
    kind: fc.constant('stray' as const),
    pick: fc.nat(),
    cellPick: fc.nat(),
    id: fc.option(fc.integer({ min: 10_000, max: 99_999 }), { nil: undefined }),
  }),
);
type Damage = typeof damage extends fc.Arbitrary<infer T> ? T : never;

const applyDamage = async (change: Damage) => {
  const { listings, nodes } = derivedPartitions();
  if (change.kind === 'count' || change.kind === 'deleteNode') {
    const all = (await Promise.all(nodes.map((partition) => partitionItems(partition.pk)))).flat();
    const node = all[change.pick % all.length];
    if (!node) return;
    if (change.kind === 'deleteNode') return deleteItems([node]);
    const counted = Object.keys(node).filter((name) => name.startsWith('n:'));
    const attribute = counted[change.pick % Math.max(1, counted.length)] ?? 'n:own|high';
    await d.dynamo.documentClient.send(
      new UpdateCommand({
        TableName: d.dynamo.tableName(),
        Key: { pk: node.pk, sk: node.sk },
        UpdateExpression: 'ADD #count :delta',
        ExpressionAttributeNames: { '#count': attribute },
        ExpressionAttributeValues: { ':delta': change.delta },
      }),
    );
    return;
  }
  const byPartition = await Promise.all(listings.map(async (partition) => ({ ...partition, items: await partitionItems(partition.pk) })));
  const all = byPartition.flatMap((partition) => partition.items);
  const listing = all[change.pick % all.length];
  if (!listing) return;
  if (change.kind === 'deleteListing') return deleteItems([listing]);
  if (change.kind === 'moveKey') {
    const sortKeys = ['tcKey', 'priceKey', 'updatedKey', 'createdKey'].filter((name) => name in listing);
    const attribute = sortKeys[change.pick % sortKeys.length]!;
    return put({ ...listing, [attribute]: change.key, ...(typeof listing.g === 'number' ? { g: change.g } : {}) });
  }
  // A stray: the listing copied into another cell of its list that holds listings, under its id or an id no item has.
  const cells = byPartition.filter(
    (partition) => listing.pk.startsWith(`T#${clientId}#${partition.tag}#`) && partition.pk !== listing.pk && partition.items.length > 0,
  );
  if (cells.length === 0) return;
  const cell = cells[change.cellPick % cells.length]!;
  return put({ ...listing, pk: cell.pk, cell: cell.cell, ...(change.id === undefined ? {} : { sk: d.sortKeys.idKey(change.id) }) });
};

beforeAll(async () => {
  api = await startTestApi();
  d = await data();
  const account = await api.createClient(username, { password: auth[1], sellerId: OWN, connector: 'amazon' });
  clientId = account.clientId;
  const perConnector = Object.fromEntries(CONNECTORS.map((uid, i) => [uid, fees(i + 1, 10 + i)]));
  await api.importRecords(username, [
    ...CONNECTORS.map((uid) => connectorRecord(uid)),
    ...PRODUCTS.map((code) => productRecord(code, { fee_estimates: perConnector })),
    ...Array.from({ length: OFFERS }, (_, n) =>
      offerRecord(`rb-${n}`, PRODUCTS[n % PRODUCTS.length]!, {
        seller_id: n % 3 ? OWN : 'seller-other',
        competitiveness: COMPETITIVENESS[n % 3],
        total_competitors: n % 13,
        offer_price: (100 + ((n * 7919) % 9_000)) / 100,
      }),
    ),
  ]);
  // 36 repricers, one per product and connector, every fourth disabled
  for (const [i, code] of PRODUCTS.entries()) {
    for (const [j, connector] of CONNECTORS.entries()) {
      const response = await api.request('POST', '/v1/repricers/', {
        auth,
        body: { product_code: code, connector, preferred_price: 100 + i, preferred_profit: 10, enabled: (i * 3 + j) % 4 !== 0 },
      });
      expect(response.status).toBe(201);
    }
  }
  await api.settle();
}, 300_000);

afterAll(async () => api?.close());

describe('rebuild', () => {
  let before: Awaited<ReturnType<typeof served>>;

  beforeAll(async () => {
    before = await served();
    expect(await countProblems()).toEqual([]);
  }, 60_000);

  it('rebuilds a tenant whose every listing and rank node was deleted', async () => {
    // Prepare
    const { listings, nodes } = derivedPartitions();
    for (const partition of [...listings, ...nodes]) await deleteItems(await partitionItems(partition.pk));
    expect((await api.request<{ meta: { total: number } }>('GET', '/v1/offers', { auth })).body.meta.total).toBe(0);

    // Act
    const request = await rebuild();

    // Assess
    expect(request).toMatchObject({ status: 'done', phase: 'done', products: PRODUCTS.length });
    expect(await served()).toEqual(before);
    expect(await countProblems()).toEqual([]);
  }, 300_000);

  it('rebuilds a tenant whose first bucket of every order and first listing of every cell were deleted', async () => {
    // Prepare: a chunk without the bucket that covers its first keys, which the rebuild's
    // relisting must count into without a node to load
    const { listings, nodes } = derivedPartitions();
    for (const partition of [...listings, ...nodes.filter((node) => node.pk.endsWith('#b'))]) {
      const [first] = await partitionItems(partition.pk);
      if (first) await deleteItems([first]);
    }

    // Act
    const request = await rebuild();

    // Assess
    expect(request.status).toBe('done');
    expect(await countProblems()).toEqual([]);
    expect(await served()).toEqual(before);
  }, 300_000);

  it('rebuilds a tenant whose listings and nodes were corrupted at random, to the same pages and totals', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(damage, { minLength: 1, maxLength: 12 }), async (changes) => {
        // Prepare
        for (const change of changes) await applyDamage(change);

        // Act
        const request = await rebuild();

        // Assess
        expect(request.status).toBe('done');
        expect(await countProblems()).toEqual([]);
        expect(await served()).toEqual(before);
      }),
      fcParameters({ numRuns: fcRuns(1, 3) }),
    );
  }, 600_000);

  it('changes nothing when the tenant is already consistent', async () => {
    // Act
    const request = await rebuild();

    // Assess
    expect(request).toMatchObject({ status: 'done', listingsRemoved: 0 });
    expect(await served()).toEqual(before);
  }, 300_000);
});
