import fc from 'fast-check';
import { connectorRecord, fees, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { NO_COMPETITOR_FILTERS, type ConnectorType, type Product } from '../../lambdas/domain/records.js';
import { bySize } from '../support/profile.js';
import { fcParameters, fcRuns } from '../support/seed.js';

/**
 * For random sets of repricers, changed by random creates, patches and deletes, every page the
 * API returns equals a brute-force filter, sort and slice of the records the API itself returned
 * for those writes, `meta.total` included.
 */
let api: TestApi;
let tenantNumber = 0;

type Repricer = { id: number; enabled: boolean; product: { code: string }; connector_type: { uid: string }; created_at: string; updated_at: string };
type Page = { meta: { total: number; limit: number; start: number }; repricers: Repricer[] };
type Auth = [string, string];

const SORTS = ['id', 'updated_at', 'created_at'] as const;
const PRODUCTS = ['P0', 'P1', 'P2', 'P3'];
const CONNECTORS = ['amazon', 'ebay', 'takealot'];

const queryArbitrary = fc.record({
  enabled: fc.option(fc.boolean(), { nil: undefined }),
  product: fc.option(fc.constantFrom(...PRODUCTS, 'P9'), { nil: undefined }),
  sort: fc.option(fc.constantFrom(...SORTS), { nil: undefined }),
  direction: fc.option(fc.constantFrom('ASC', 'DESC', 'asc', 'desc'), { nil: undefined }),
  limit: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
  start: fc.option(fc.integer({ min: 0, max: 320 }), { nil: undefined }),
});
type Query = typeof queryArbitrary extends fc.Arbitrary<infer T> ? T : never;

const queryString = (q: Query): string => {
  const params = new URLSearchParams();
  if (q.enabled !== undefined) params.set('enabled', String(q.enabled));
  if (q.product !== undefined) params.set('product_code', q.product);
  if (q.sort !== undefined) params.set('_sort', q.direction ? `${q.sort}:${q.direction}` : q.sort);
  if (q.limit !== undefined) params.set('_limit', String(q.limit));
  if (q.start !== undefined) params.set('_start', String(q.start));
  return params.toString();
};

const sortValue = (repricer: Repricer, field: (typeof SORTS)[number]): number => (field === 'id' ? repricer.id : Date.parse(repricer[field]));

const bruteForce = (repricers: Iterable<Repricer>, q: Query): Page => {
  const field = q.sort ?? 'id';
  const sign = q.sort !== undefined && q.direction?.toUpperCase() === 'DESC' ? -1 : 1;
  const matching = [...repricers]
    .filter((r) => q.enabled === undefined || r.enabled === q.enabled)
    .filter((r) => q.product === undefined || r.product.code === q.product)
    .sort((a, b) => sign * (sortValue(a, field) - sortValue(b, field) || a.id - b.id));
  const limit = q.limit ?? 100;
  const start = q.start ?? 0;
  return { meta: { total: matching.length, limit, start }, repricers: matching.slice(start, start + limit) };
};

/** Every query's page equals the brute-force answer over `model`. */
const expectPagesMatch = async (auth: Auth, model: Map<number, Repricer>, queries: Query[]) => {
  for (const query of queries) {
    const response = await api.request<Page>('GET', `/v1/repricers?${queryString(query)}`, { auth });
    const expected = bruteForce(model.values(), query);
    expect(response.status).toBe(200);
    expect(response.body.meta).toEqual(expected.meta);
    expect(response.body.repricers).toEqual(expected.repricers);
  }
};

const newTenant = async (): Promise<{ auth: Auth; clientId: string }> => {
  const username = `repricing${++tenantNumber}`;
  const auth: Auth = [username, 'property-password'];
  const account = await api.createClient(username, { password: auth[1] });
  const perConnector = Object.fromEntries(CONNECTORS.map((uid, i) => [uid, fees(i + 1, 10 + i)]));
  await api.importRecords(username, [
    ...CONNECTORS.map((uid) => connectorRecord(uid)),
    ...PRODUCTS.map((code) => productRecord(code, { fee_estimates: perConnector })),
  ]);
  return { auth, clientId: account.clientId };
};

const operation = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), product: fc.constantFrom(...PRODUCTS), connector: fc.constantFrom(...CONNECTORS), enabled: fc.boolean() }),
  fc.record({
    kind: fc.constant('patch' as const),
    pick: fc.nat(),
    enabled: fc.option(fc.boolean(), { nil: undefined }),
    cents: fc.integer({ min: 5000, max: 9000 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
);
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

/** Applies one operation through the API and records what the API answered in `model`. */
const apply = async (auth: Auth, model: Map<number, Repricer>, op: Operation) => {
  const existing = [...model.keys()];
  if (op.kind === 'create') {
    const body = { product_code: op.product, connector: op.connector, enabled: op.enabled, preferred_price: 100, preferred_profit: 20 };
    const response = await api.request<Repricer>('POST', '/v1/repricers/', { auth, body });
    const taken = [...model.values()].some((r) => r.product.code === op.product && r.connector_type.uid === op.connector);
    expect(response.status).toBe(taken ? 409 : 201);
    if (response.status === 201) model.set(response.body.id, response.body);
    return;
  }
  if (existing.length === 0) return;
  const id = existing[op.pick % existing.length]!;
  if (op.kind === 'patch') {
    const body = { preferred_price: op.cents / 100, ...(op.enabled === undefined ? {} : { enabled: op.enabled }) };
    const response = await api.request<Repricer>('PATCH', `/v1/repricers/${id}`, { auth, body });
    expect(response.status).toBe(200);
    model.set(id, response.body);
  } else {
    expect((await api.request('DELETE', `/v1/repricers/${id}`, { auth })).status).toBe(204);
    model.delete(id);
  }
};

beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => api?.close());

it('pages equal a brute-force filter, sort and slice after random creates, patches and deletes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(operation, { maxLength: 30 }), fc.array(queryArbitrary, { minLength: 1, maxLength: 8 }), async (operations, queries) => {
      const { auth } = await newTenant();
      const model = new Map<number, Repricer>();
      for (const op of operations) await apply(auth, model, op);
      await expectPagesMatch(auth, model, queries);
    }),
    fcParameters({ numRuns: fcRuns(2, 10) }),
  );
}, 600_000);

it('pages stay exact in a tenant large enough to split rank buckets', async () => {
  const { createRepricer } = await import('../../lambdas/data/repricers/write.js');
  const { auth, clientId } = await newTenant();
  // The product record a repricer nests: GET's detail less what only the product route shows.
  const { in_stock_premium: _premium, ...product } = (await api.request<Product & { in_stock_premium: unknown }>('GET', '/v1/products/P0', { auth })).body;
  const connector = (uid: string): ConnectorType => ({
    id: 1,
    uid,
    name: uid,
    logo: `https://logos.example/${uid}.png`,
    website: null,
    created_at: product.created_at,
    updated_at: product.created_at,
  });
  // More repricers than two buckets hold (BUCKET_MAX, 48) over four products, one fictitious
  // connector each: 120 under `npm test`, 300 under `npm run test:full`.
  const model = new Map<number, Repricer>();
  for (let n = 0; n < bySize(120, 300); n++) {
    const result = await createRepricer(clientId, {
      buybox_approach: 'cheapest',
      repricer_approach: 'fixed',
      enabled: n % 3 !== 0,
      preferred_price: 100,
      preferred_profit: 20,
      min_price: 80,
      min_profit: 0,
      fixed_fulfilment_fee: 0,
      unit_cost: null,
      ...NO_COMPETITOR_FILTERS,
      price_war_guard: null,
      connector_type: connector(`c${n}`),
      product: { ...product, code: PRODUCTS[n % PRODUCTS.length]! },
    });
    if (!result.created) throw new Error('seed slot taken');
    model.set(result.repricer.id, result.repricer);
  }

  await fc.assert(
    fc.asyncProperty(
      fc.array(
        operation.filter((op) => op.kind !== 'create'),
        { maxLength: 10 },
      ),
      fc.array(queryArbitrary, { minLength: 1, maxLength: 6 }),
      async (operations, queries) => {
        for (const op of operations) await apply(auth, model, op);
        await expectPagesMatch(auth, model, queries);
      },
    ),
    fcParameters({ numRuns: fcRuns(2, 8) }),
  );
}, 600_000);
