import fc from 'fast-check';
import { connectorRecord, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { fcParameters, fcRuns } from '../support/seed.js';

/**
 * For random offer sets and random valid queries, every page the API returns equals a
 * brute-force filter, sort and slice of the same offers, `meta.total` included; every run
 * also asks for `total_competitors_gte` with every sort in both directions.
 */
let api: TestApi;
let tenantNumber = 0;

type Offer = { id: number; offer_id: string; seller_id: string; competitiveness: string; total_competitors: number; offer_price: number; updated_at: string };
type Page = { meta: { total: number; limit: number; start: number }; offers: Offer[] };

const OWN_SELLER = 'seller-own';
const SORTS = ['id', 'total_competitors', 'offer_price', 'updated_at'] as const;

const offerArbitrary = fc.record({
  own: fc.boolean(),
  competitiveness: fc.constantFrom('high', 'medium', 'low'),
  total_competitors: fc.integer({ min: 0, max: 6 }),
  cents: fc.integer({ min: 0, max: 400 }),
});

const queryArbitrary = fc.record({
  includeOthers: fc.option(fc.boolean(), { nil: undefined }),
  competitiveness: fc.option(fc.constantFrom('high', 'medium', 'low', 'none'), { nil: undefined }),
  gte: fc.option(fc.integer({ min: 0, max: 7 }), { nil: undefined }),
  sort: fc.option(fc.constantFrom(...SORTS), { nil: undefined }),
  direction: fc.option(fc.constantFrom('ASC', 'DESC', 'asc', 'desc'), { nil: undefined }),
  limit: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
  start: fc.option(fc.integer({ min: 0, max: 45 }), { nil: undefined }),
});
type Query = typeof queryArbitrary extends fc.Arbitrary<infer T> ? T : never;

const queryString = (q: Query): string => {
  const { sort } = q;
  const params = new URLSearchParams();
  if (q.includeOthers !== undefined) params.set('_include_other_offers', String(q.includeOthers));
  if (q.competitiveness !== undefined) params.set('competitiveness', q.competitiveness);
  if (q.gte !== undefined) params.set('total_competitors_gte', String(q.gte));
  if (sort !== undefined) params.set('_sort', q.direction ? `${sort}:${q.direction}` : sort);
  if (q.limit !== undefined) params.set('_limit', String(q.limit));
  if (q.start !== undefined) params.set('_start', String(q.start));
  return params.toString();
};

const sortValue = (offer: Offer, field: (typeof SORTS)[number]): number => (field === 'updated_at' ? Date.parse(offer.updated_at) : offer[field]);

/**
 * The order docs/api.md documents for the parameters as sent: `_sort` is a field with an optional
 * direction (default ASC); without `_sort` it is `id:ASC`, whatever the filters. A direction
 * the generator drew goes nowhere without a field.
 */
const documentedOrder = (params: URLSearchParams): { field: (typeof SORTS)[number]; sign: 1 | -1 } => {
  const sort = params.get('_sort');
  if (sort === null) return { field: 'id', sign: 1 };
  const [field, direction = 'ASC'] = sort.split(':');
  return { field: field as (typeof SORTS)[number], sign: direction.toUpperCase() === 'DESC' ? -1 : 1 };
};

/** Filters, sorts and slices `offers` as the request `query` asks, read from its parameters alone. */
const bruteForce = (offers: Offer[], query: string): Page => {
  const params = new URLSearchParams(query);
  const includeOthers = params.get('_include_other_offers') === 'true';
  const competitiveness = params.get('competitiveness');
  const gte = params.has('total_competitors_gte') ? Number(params.get('total_competitors_gte')) : undefined;
  const { field, sign } = documentedOrder(params);
  const matching = offers
    .filter((o) => includeOthers || o.seller_id === OWN_SELLER)
    .filter((o) => competitiveness === null || o.competitiveness === competitiveness)
    .filter((o) => gte === undefined || o.total_competitors >= gte)
    .sort((a, b) => sign * (sortValue(a, field) - sortValue(b, field) || a.id - b.id));
  const limit = Number(params.get('_limit') ?? 100);
  const start = Number(params.get('_start') ?? 0);
  return { meta: { total: matching.length, limit, start }, offers: matching.slice(start, start + limit) };
};

beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => api?.close());

it('pages equal a brute-force filter, sort and slice of the same offers', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(offerArbitrary, { maxLength: 40 }),
      fc.array(queryArbitrary, { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 0, max: 7 }),
      fc.option(fc.constantFrom('high', 'medium', 'low'), { nil: undefined }),
      async (specs, queries, gte, competitiveness) => {
        const username = `tenant${++tenantNumber}`;
        const auth: [string, string] = [username, 'property-password'];
        await api.createClient(username, { password: auth[1], sellerId: OWN_SELLER });
        await api.importRecords(username, [
          connectorRecord('amazon'),
          productRecord('P1'),
          productRecord('P2'),
          ...specs.map((s, i) =>
            offerRecord(`o${i}`, i % 2 ? 'P1' : 'P2', {
              seller_id: s.own ? OWN_SELLER : 'seller-other',
              competitiveness: s.competitiveness,
              total_competitors: s.total_competitors,
              offer_price: s.cents / 100,
            }),
          ),
        ]);
        const everything = (await api.request('GET', '/v1/offers?_include_other_offers=true&_limit=100', { auth })).body as Page;
        expect(everything.offers.map((o) => o.offer_id).sort()).toEqual(specs.map((_, i) => `o${i}`).sort());

        // Besides the random queries, the competitor filter with every sort in both directions.
        const everySortWithGte = SORTS.flatMap((sort) =>
          (['ASC', 'DESC'] as const).map((direction) => ({ includeOthers: true, competitiveness, gte, sort, direction, limit: 7, start: 2 }) satisfies Query),
        );
        for (const query of [...queries, ...everySortWithGte].map(queryString)) {
          const response = await api.request('GET', `/v1/offers?${query}`, { auth });
          const expected = bruteForce(everything.offers, query);
          expect(response.status).toBe(200);
          const page = response.body as Page;
          expect(page.meta).toEqual(expected.meta);
          expect(page.offers.map((o) => o.offer_id)).toEqual(expected.offers.map((o) => o.offer_id));
        }
      },
    ),
    fcParameters({ numRuns: fcRuns(5, 20) }),
  );
}, 600_000);
