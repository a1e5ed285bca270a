import fc from 'fast-check';
import type { StoredOffer } from '../../lambdas/data/offers/list.js';
import type { Offer } from '../../lambdas/domain/records.js';
import { connectorRecord, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { nodeDiscrepancies, type OrderNodes } from '../support/rank-check.js';
import { fcParameters, fcRuns } from '../support/seed.js';

/**
 * The offer lists through the real pipeline (import -> table -> stream -> forwarder -> FIFO
 * queue -> maintainer): after random sequences of new offers, price, competitor,
 * competitiveness and seller changes, product moves, product changes and deletes, some of them
 * landing in one stream batch, every page and total of random queries equals a brute-force
 * answer over the canonical offers, every offer is listed once where it belongs with the
 * current product nested, and every rank node counts exactly what the listing holds.
 */
let api: TestApi;
let tenantNumber = 0;
const OWN = 'seller-own';
const PRODUCTS = ['P0', 'P1', 'P2'];
const COMPETITIVENESS = ['high', 'medium', 'low'] as const;
const SORTS = ['id', 'total_competitors', 'offer_price', 'updated_at'] as const;
type Sort = (typeof SORTS)[number];
type Page = { meta: { total: number; limit: number; start: number }; offers: Offer[] };

beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => api?.close());

const offerSpec = fc.record({
  own: fc.boolean(),
  comp: fc.constantFrom(...COMPETITIVENESS),
  tc: fc.integer({ min: 0, max: 12 }),
  cents: fc.integer({ min: 1, max: 2_000 }),
  product: fc.constantFrom(...PRODUCTS),
});
type OfferSpec = typeof offerSpec extends fc.Arbitrary<infer T> ? T : never;

const operation = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('upsert' as const), offer: fc.integer({ min: 0, max: 159 }), spec: offerSpec }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), offer: fc.integer({ min: 0, max: 159 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('product' as const), product: fc.constantFrom(...PRODUCTS), title: fc.string({ minLength: 1, maxLength: 20 }) }),
  },
);
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

const queryArbitrary = fc.record({
  includeOthers: fc.boolean(),
  competitiveness: fc.option(fc.constantFrom(...COMPETITIVENESS), { nil: undefined }),
  gte: fc.option(fc.integer({ min: 0, max: 13 }), { nil: undefined }),
  sort: fc.constantFrom(...SORTS),
  direction: fc.constantFrom('ASC', 'DESC'),
  limit: fc.integer({ min: 1, max: 100 }),
  start: fc.integer({ min: 0, max: 160 }),
});
type Query = typeof queryArbitrary extends fc.Arbitrary<infer T> ? T : never;

const offerLine = (n: number, spec: OfferSpec) =>
  offerRecord(`o${n}`, spec.product, {
    seller_id: spec.own ? OWN : 'seller-other',
    competitiveness: spec.comp,
    total_competitors: spec.tc,
    offer_price: spec.cents / 100,
  });

const sortValue = (offer: StoredOffer, sort: Sort) =>
  sort === 'id'
    ? offer.id
    : sort === 'total_competitors'
      ? offer.fields.total_competitors
      : sort === 'offer_price'
        ? offer.fields.offer_price
        : Date.parse(offer.updated_at);

const bruteForce = (offers: readonly StoredOffer[], q: Query) => {
  const sign = q.direction === 'ASC' ? 1 : -1;
  const matching = offers
    .filter((offer) => q.includeOthers || offer.scope === 'own')
    .filter((offer) => q.competitiveness === undefined || offer.fields.competitiveness === q.competitiveness)
    .filter((offer) => q.gte === undefined || offer.fields.total_competitors >= q.gte)
    .sort((a, b) => sign * (sortValue(a, q.sort) - sortValue(b, q.sort) || a.id - b.id));
  return { total: matching.length, offers: matching.slice(q.start, q.start + q.limit) };
};

const queryString = (q: Query) => {
  const params = new URLSearchParams({
    _include_other_offers: String(q.includeOthers),
    _sort: `${q.sort}:${q.direction}`,
    _limit: String(q.limit),
    _start: String(q.start),
  });
  if (q.competitiveness !== undefined) params.set('competitiveness', q.competitiveness);
  if (q.gte !== undefined) params.set('total_competitors_gte', String(q.gte));
  return params.toString();
};

it('keeps pages, totals and rank nodes exact through random offer changes', async () => {
  const { importRecords } = await import('../../tools/admin/import.js');
  const { deleteOffers } = await import('../../lambdas/data/offers/write.js');
  const { offersOfProduct } = await import('../../lambdas/data/offers/maintenance.js');
  const { getProducts } = await import('../../lambdas/data/offers/products.js');
  const { OFFER_LIST, offerCell, offerRecordOf } = await import('../../lambdas/data/offers/list.js');
  const { placeOf } = await import('../../lambdas/data/lists/ranked/ranked-list.js');
  const { readNodes } = await import('../../lambdas/data/lists/ranked/node-store.js');
  const { readAllPlaces } = await import('../../lambdas/data/lists/ranked/recount.js');

  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(operation, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 5 }),
      fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
      fc.array(queryArbitrary, { minLength: 4, maxLength: 8 }),
      async (rounds, settleAfter, queries) => {
        // Prepare: a tenant with 100 offers, enough to split the first buckets
        const username = `lists${++tenantNumber}`;
        const auth: [string, string] = [username, 'property-password'];
        const { clientId } = await api.createClient(username, { password: auth[1], sellerId: OWN });
        await api.importRecords(username, [
          connectorRecord('amazon'),
          ...PRODUCTS.map((code) => productRecord(code)),
          ...Array.from({ length: 100 }, (_, n) =>
            offerLine(n, { own: n % 3 !== 0, comp: COMPETITIVENESS[n % 3]!, tc: n % 11, cents: 1 + ((n * 37) % 2000), product: PRODUCTS[n % 3]! }),
          ),
        ]);

        // Act: rounds of changes; some rounds reach the maintainer together with the next
        for (const [r, round] of rounds.entries()) {
          const latest = new Map<string, Operation>();
          for (const op of round) latest.set(op.kind === 'product' ? op.product : `o${op.offer}`, op);
          const lines = [...latest.values()].flatMap((op) =>
            op.kind === 'upsert' ? [offerLine(op.offer, op.spec)] : op.kind === 'product' ? [productRecord(op.product, { title: op.title })] : [],
          );
          const deletes = [...latest.values()].flatMap((op) => (op.kind === 'delete' ? [`o${op.offer}`] : []));
          if (lines.length > 0) await importRecords(lines, { username });
          if (deletes.length > 0) await deleteOffers(clientId, deletes);
          if (settleAfter[r]) await api.settle();
        }
        await api.settle();

        // Assess: against the canonical offers and products
        const canonical = (await Promise.all(PRODUCTS.map((code) => offersOfProduct(clientId, code)))).flat();
        const products = await getProducts(clientId, PRODUCTS);
        const expectedRecord = (offer: StoredOffer) => offerRecordOf(offer, products.get(offer.product_code)!);

        const cells = COMPETITIVENESS.flatMap((comp) => (['own', 'other'] as const).map((scope) => offerCell(scope, comp)));
        const places = await readAllPlaces(clientId, OFFER_LIST, cells);
        expect(places.map((place) => place.id).sort((a, b) => a - b)).toEqual(canonical.map((offer) => offer.id).sort((a, b) => a - b));
        const byId = new Map(canonical.map((offer) => [offer.id, offer]));
        for (const place of places) expect(place).toEqual(placeOf(OFFER_LIST, byId.get(place.id)!));

        const nodes = new Map<string, OrderNodes>();
        for (const order of Object.keys(OFFER_LIST.orders)) {
          const at = (level: 'b' | 'c') => ({ clientId, tag: OFFER_LIST.tag, order, level });
          nodes.set(order, { buckets: await readNodes(at('b'), {}, { consistent: true }), chunks: await readNodes(at('c'), {}, { consistent: true }) });
        }
        expect(nodeDiscrepancies(OFFER_LIST, places, nodes)).toEqual([]);

        for (const query of queries) {
          const response = await api.request<Page>('GET', `/v1/offers?${queryString(query)}`, { auth });
          const expected = bruteForce(canonical, query);
          expect(response.status).toBe(200);
          expect(response.body.meta).toEqual({ total: expected.total, limit: query.limit, start: query.start });
          expect(response.body.offers).toEqual(expected.offers.map(expectedRecord));
        }
      },
    ),
    fcParameters({ numRuns: fcRuns(2, 5) }),
  );
}, 900_000);
