import { connectorRecord, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { step } from '../support/story.js';

/** GET /v1/offers through the local HTTP server, the authorizer and DynamoDB Local. */
let api: TestApi;
const alice: [string, string] = ['alice', 'alice-password-1'];
const bob: [string, string] = ['bob', 'bob-password-1'];

type OfferBody = {
  id: number;
  offer_id: string;
  seller_id: string;
  competitiveness: string;
  total_competitors: number;
  offer_price: number;
  product: { code: string; title: string };
};
type Page = { meta: { total: number; limit: number; start: number }; offers: OfferBody[] };

const list = async (query: string, auth = alice) => {
  const response = await api.request('GET', `/v1/offers${query}`, { auth });
  return response as { status: number; headers: Record<string, string>; body: Page };
};
const ids = (page: Page) => page.offers.map((o) => o.offer_id);

// Alice's own offers: a1..a6; other sellers' offers on her products: x1..x3.
const aliceOffers = [
  offerRecord('a1', 'P1', { competitiveness: 'high', total_competitors: 5, offer_price: 10.5 }),
  offerRecord('a2', 'P1', { competitiveness: 'low', total_competitors: 1, offer_price: 8 }),
  offerRecord('a3', 'P2', { competitiveness: 'high', total_competitors: 5, offer_price: 12.25 }),
  offerRecord('a4', 'P2', { competitiveness: 'medium', total_competitors: 9, offer_price: 8 }),
  offerRecord('a5', 'P3', { competitiveness: 'high', total_competitors: 0, offer_price: 99.99 }),
  offerRecord('a6', 'P3', { competitiveness: 'low', total_competitors: 12, offer_price: 0.5 }),
  offerRecord('x1', 'P1', { seller_id: 'seller-x', competitiveness: 'high', total_competitors: 7, offer_price: 9 }),
  offerRecord('x2', 'P2', { seller_id: 'seller-y', competitiveness: 'low', total_competitors: 2, offer_price: 15 }),
  offerRecord('x3', 'P3', { seller_id: 'seller-x', competitiveness: 'high', total_competitors: 30, offer_price: 1 }),
];

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(alice[0], { password: alice[1], sellerId: 'seller-a' });
  await api.createClient(bob[0], { password: bob[1], sellerId: 'seller-b' });
  await api.importRecords(alice[0], [
    connectorRecord('amazon'),
    productRecord('P1'),
    productRecord('P2'),
    productRecord('P3', { fee_estimates: null, soh: 0 }),
    ...aliceOffers,
  ]);
  // Bob has a product with the same code as one of Alice's, and one offer of his own.
  await api.importRecords(bob[0], [productRecord('P1', { title: 'Bob P1' }), offerRecord('b1', 'P1', { seller_id: 'seller-b' })]);
}, 120_000);

afterAll(async () => api?.close());

describe('GET /v1/offers', () => {
  it('lists offers through one catalogue and its changes: default list, other sellers, filters, sorts, pages, moves, tenancy', async () => {
    await step('lists only the client own offers by default, sorted by id, with exact meta and the product nested', async () => {
      const { status, headers, body } = await list('');

      expect(status).toBe(200);
      expect(headers['content-type']).toMatch(/^application\/json/);
      expect(body.meta).toEqual({ total: 6, limit: 100, start: 0 });
      expect(ids(body)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
      expect(body.offers.map((o) => o.id)).toEqual([...body.offers.map((o) => o.id)].sort((a, b) => a - b));
      expect(body.offers[0]?.product).toMatchObject({ code: 'P1', title: 'Product P1', description: 'Line one\nLine two' });
    });
    await step('includes the other sellers offers on the client products with _include_other_offers=true', async () => {
      const all = await list('?_include_other_offers=true');
      const own = await list('?_include_other_offers=false');

      expect(all.body.meta.total).toBe(9);
      expect(ids(all.body).sort()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'x1', 'x2', 'x3']);
      expect(ids(own.body)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    });
    await step('filters by exact competitiveness', async () => {
      const { body } = await list('?competitiveness=high&_include_other_offers=true');

      expect(body.meta.total).toBe(5);
      expect(body.offers.every((o) => o.competitiveness === 'high')).toBe(true);
      expect((await list('?competitiveness=HIGH')).body.meta.total).toBe(0);
    });
    await step('filters by total_competitors_gte, sorted by id by default', async () => {
      const { body } = await list('?total_competitors_gte=5&_include_other_offers=true');

      expect(body.meta.total).toBe(6);
      expect(body.offers.map((o) => [o.offer_id, o.total_competitors])).toEqual([
        ['a1', 5],
        ['a3', 5],
        ['a4', 9],
        ['a6', 12],
        ['x1', 7],
        ['x3', 30],
      ]);
    });
    await step('combines total_competitors_gte with every sort', async () => {
      for (const [sort, expected] of [
        ['offer_price', ['a6', 'a4', 'a1', 'a3']],
        ['offer_price:DESC', ['a3', 'a1', 'a4', 'a6']],
        ['updated_at', ['a1', 'a3', 'a4', 'a6']],
        ['id:desc', ['a6', 'a4', 'a3', 'a1']],
        ['total_competitors:DESC', ['a6', 'a4', 'a3', 'a1']],
      ] as const) {
        const { status, body } = await list(`?total_competitors_gte=5&_sort=${sort}`);

        expect(status).toBe(200);
        expect(body.meta.total).toBe(4);
        expect(ids(body)).toEqual(expected);
      }
    });
    await step('combines both filters in descending order', async () => {
      const { body } = await list('?total_competitors_gte=5&competitiveness=high&_sort=total_competitors:desc&_include_other_offers=true');

      expect(body.offers.map((o) => o.offer_id)).toEqual(['x3', 'x1', 'a3', 'a1']);
      expect(body.meta.total).toBe(4);
    });
    await step('sorts by each field with ties broken by id in the same direction', async () => {
      for (const [sort, expected] of [
        ['offer_price', ['a6', 'a2', 'a4', 'a1', 'a3', 'a5']],
        ['offer_price:DESC', ['a5', 'a3', 'a1', 'a4', 'a2', 'a6']],
        ['total_competitors:asc', ['a5', 'a2', 'a1', 'a3', 'a4', 'a6']],
        ['id:DESC', ['a6', 'a5', 'a4', 'a3', 'a2', 'a1']],
      ] as const) {
        const { body } = await list(`?_sort=${sort}`);

        expect(ids(body)).toEqual(expected);
      }
    });
    await step('sorts by updated_at: a re-imported offer moves to the end', async () => {
      await api.importRecords(alice[0], [offerRecord('a2', 'P1', { competitiveness: 'low', total_competitors: 1, offer_price: 8.01 })]);

      const { body } = await list('?_sort=updated_at');
      const { body: descending } = await list('?_sort=updated_at:DESC');

      expect(ids(body).at(-1)).toBe('a2');
      expect(ids(descending)[0]).toBe('a2');
    });
    await step('pages with _limit and _start without overlap or gaps, and past the end returns an empty page', async () => {
      const pages = await Promise.all([0, 4, 8].map((start) => list(`?_include_other_offers=true&_sort=offer_price&_limit=4&_start=${start}`)));
      const whole = await list('?_include_other_offers=true&_sort=offer_price');
      const beyond = await list('?_start=50&_limit=10');

      expect(pages.flatMap((p) => ids(p.body))).toEqual(ids(whole.body));
      expect(pages.map((p) => p.body.meta)).toEqual([
        { total: 9, limit: 4, start: 0 },
        { total: 9, limit: 4, start: 4 },
        { total: 9, limit: 4, start: 8 },
      ]);
      expect(beyond.body).toEqual({ meta: { total: 6, limit: 10, start: 50 }, offers: [] });
    });
    await step('moves an offer between filters when its competitiveness and competitor count change', async () => {
      await api.importRecords(alice[0], [offerRecord('a5', 'P3', { competitiveness: 'low', total_competitors: 20, offer_price: 99.99 })]);

      expect(ids((await list('?competitiveness=high')).body)).toEqual(['a1', 'a3']);
      expect(ids((await list('?competitiveness=low')).body)).toEqual(['a2', 'a5', 'a6']);
      expect(ids((await list('?total_competitors_gte=13')).body)).toEqual(['a5']);
    });
    await step('serves the path with a trailing slash too', async () => {
      expect((await list('/?_limit=1')).body.meta).toEqual({ total: 6, limit: 1, start: 0 });
    });
    await step('never shows one client the offers or products of another', async () => {
      const { body } = await list('?_include_other_offers=true', bob);

      expect(ids(body)).toEqual(['b1']);
      expect(body.offers[0]?.product.title).toBe('Bob P1');
    });
    await step('answers with a 400 problem naming', async () => {
      for (const [query, field] of [
        ['?_limit=0', '_limit'],
        ['?_limit=101', '_limit'],
        ['?_limit=abc', '_limit'],
        ['?_start=-1', '_start'],
        ['?_sort=price', '_sort'],
        ['?_sort=offer_price:sideways', '_sort'],
        ['?competitiveness=', 'competitiveness'],
        ['?total_competitors_gte=1.5', 'total_competitors_gte'],
        ['?_include_other_offers=yes', '_include_other_offers'],
        ['?colour=red', 'colour'],
        ['?_limit=5&_limit=6', '_limit'],
      ] as const) {
        const response = await api.request('GET', `/v1/offers${query}`, { auth: alice });
        const body = response.body as { status: number; type: string; title: string; errors: { field: string; message: string }[] };

        expect(response.status).toBe(400);
        expect(response.headers['content-type']).toBe('application/problem+json');
        expect(body).toMatchObject({ status: 400, title: 'Bad Request' });
        expect(body.errors.map((e) => e.field)).toContain(field);
      }
    });
  }, 780_000);
});
