import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { canonicalPriceChanges, type PriceChange } from '../support/repricing.js';
import { step } from '../support/story.js';

/**
 * Competitor filters end to end (docs/repricing.md, "Competitor filters"): a repricer created
 * and changed with filters through the API decides, through the stream and the evaluator, as if
 * the competitors its filters exclude were not there. Responses are checked against the OpenAPI
 * document by the test API.
 *
 * F-1 (floor 48.24, ceiling 60), Alice's offer at 55, and four other sellers:
 *   sister 50 (Alice's own outlet store)   junk 52 (rating 2.1)   slow 53 (leadtime)   good 58
 */
let api: TestApi;
const alice: [string, string] = ['filters-alice', 'alice-password-1'];
let aliceId: string;

const rival = (offerId: string, sellerId: string, price: number, overrides: Record<string, unknown> = {}) =>
  offerRecord(offerId, 'F-1', { seller_id: sellerId, seller_name: sellerId, offer_price: price, rating_avg: 4.6, ...overrides });
const catalogue = [
  productRecord('F-1', { fee_estimates: { amazon: fees(5, 15) } }),
  productRecord('F-2', { fee_estimates: { amazon: fees(5, 15) } }),
  productRecord('F-3', { fee_estimates: { amazon: fees(5, 15) } }),
  offerRecord('F1-own', 'F-1', { seller_id: 'seller-f', offer_price: 55 }),
  rival('F1-sister', 'seller-f-outlet', 50, { rating_avg: 4.9 }),
  rival('F1-junk', 'seller-junk', 52, { rating_avg: 2.1 }),
  rival('F1-slow', 'seller-slow', 53, { stock_status: 'lead_time', rating_avg: 4.8 }),
  rival('F1-good', 'seller-good', 58),
  offerRecord('F2-own', 'F-2', { seller_id: 'seller-f', offer_price: 55 }),
  offerRecord('F2-sister', 'F-2', { seller_id: 'seller-f-outlet', offer_price: 50 }),
  offerRecord('F2-other', 'F-2', { seller_id: 'seller-other', offer_price: 54 }),
];

const json = { 'content-type': 'application/json' };
type Problem = { errors?: { field: string }[] };
type Repricer = { id: number } & Record<string, unknown>;

const decisions = async () => (await canonicalPriceChanges(api.tableName, aliceId)).map((item) => item.record);
/** Runs the action and answers the price changes it made appear, once the stream has settled. */
const decidedBy = async (action: () => Promise<unknown>): Promise<PriceChange[]> => {
  const before = new Set((await decisions()).map((change) => change.id));
  await action();
  await api.settle();
  return (await decisions()).filter((change) => !before.has(change.id));
};
const summary = (change: PriceChange) => [change.product_code, change.new_price, change.reason, change.competitor_offer_id];

const create = async (body: Record<string, unknown>) => {
  const response = await api.request<Repricer>('POST', '/v1/repricers/', { auth: alice, body, headers: json });
  if (response.status !== 201) throw new Error(`Creating a repricer answered ${response.status}: ${response.text}`);
  return response.body;
};
let repricer: Repricer;
const patch = async (body: Record<string, unknown>) => {
  const response = await api.request<Repricer>('PATCH', `/v1/repricers/${repricer.id}`, { auth: alice, body, headers: json });
  if (response.status !== 200) throw new Error(`PATCH answered ${response.status}: ${response.text}`);
  return response.body;
};

beforeAll(async () => {
  api = await startTestApi();
  aliceId = (await api.createClient(alice[0], { password: alice[1], sellerId: 'seller-f', connector: 'amazon' })).clientId;
  await api.importRecords(alice[0], [connectorRecord('amazon'), ...catalogue]);
}, 120_000);

afterAll(async () => api?.close());

it('decides as if the competitors a repricer filters out were not there', async () => {
  await step('created with filters: undercuts the lowest competitor left (good at 58), not the outlet, the junk nor the leadtime offer', async () => {
    // Act
    const appeared = await decidedBy(async () => {
      repricer = await create({
        product_code: 'F-1',
        preferred_price: 60,
        preferred_profit: 10,
        exclude_seller_ids: ['seller-f-outlet'],
        min_competitor_rating: 4,
        competitor_stock: 'in_stock',
      });
    });

    // Assert
    expect(repricer).toMatchObject({
      min_price: 48.24,
      exclude_seller_ids: ['seller-f-outlet'],
      min_competitor_rating: 4,
      competitor_stock: 'in_stock',
      max_competitor_leadtime_days: null,
    });
    expect(appeared.map(summary)).toEqual([['F-1', 57, 'undercut', 'F1-good']]);
    expect(appeared[0]).toMatchObject({ repricer_id: repricer.id, offer_id: 'F1-own', old_price: 55, lowest_competitor_price: 58 });
  });

  await step('an excluded competitor moving under everyone changes nothing; the eligible one moving does', async () => {
    const appeared = await decidedBy(() =>
      api.importRecords(alice[0], [rival('F1-sister', 'seller-f-outlet', 45, { rating_avg: 4.9 }), rival('F1-good', 'seller-good', 57)]),
    );
    expect(appeared.map(summary)).toEqual([['F-1', 56, 'undercut', 'F1-good']]);
  });

  await step('competing with any stock again brings the leadtime offer back', async () => {
    const appeared = await decidedBy(() => patch({ competitor_stock: 'any' }));
    expect(appeared.map(summary)).toEqual([['F-1', 52, 'undercut', 'F1-slow']]);
  });

  await step('a maximum leadtime of 0 days leaves it out again (a leadtime offer ships in a day or more)', async () => {
    const appeared = await decidedBy(() => patch({ max_competitor_leadtime_days: 0 }));
    expect(appeared.map(summary)).toEqual([['F-1', 56, 'undercut', 'F1-good']]);
  });

  await step('filters that exclude every competitor mean alone: the ceiling, no competition', async () => {
    // Act
    let patched: Repricer | undefined;
    const appeared = await decidedBy(async () => {
      patched = await patch({ exclude_seller_ids: ['seller-f-outlet', 'seller-good'] });
    });

    // Assert
    expect(patched).toMatchObject({
      exclude_seller_ids: ['seller-f-outlet', 'seller-good'],
      min_competitor_rating: 4,
      competitor_stock: 'any',
      max_competitor_leadtime_days: 0,
    });
    expect(appeared).toMatchObject([
      { product_code: 'F-1', new_price: 60, reason: 'no_competition', lowest_competitor_price: null, competitor_offer_id: null },
    ]);
  });

  await step('turning the rating filter off with null lets the junk seller count (lowest left: junk at 52)', async () => {
    const appeared = await decidedBy(() => patch({ min_competitor_rating: null }));
    expect(appeared.map(summary)).toEqual([['F-1', 51, 'undercut', 'F1-junk']]);
  });
});

it('takes filters from a repricer import line, as from a create', async () => {
  // Act
  const line = { product_code: 'F-2', preferred_price: 60, preferred_profit: 10, exclude_seller_ids: ['seller-f-outlet'] };
  const appeared = await decidedBy(async () => {
    const accepted = await api.request<{ id: number }>('POST', '/v1/imports?import_type=repricers', {
      auth: alice,
      body: `${JSON.stringify(line)}\n`,
      headers: { 'Content-Type': 'application/x-ndjson' },
    });
    expect(accepted.status).toBe(202);
  });

  // Assert
  const listed = await api.request<{ repricers: Repricer[] }>('GET', '/v1/repricers?product_code=F-2', { auth: alice });
  expect(listed.body.repricers).toMatchObject([{ exclude_seller_ids: ['seller-f-outlet'], competitor_stock: 'any' }]);
  expect(appeared.map(summary)).toEqual([['F-2', 53, 'undercut', 'F2-other']]);
});

/** A repricer of F-3 for the PATCH cases, created by whichever needs it first. */
let patchTarget: Promise<Repricer> | undefined;

it.each<[string, 'POST' | 'PATCH', Record<string, unknown>, string]>([
  ['an unknown stock filter', 'POST', { competitor_stock: 'sometimes' }, 'competitor_stock'],
  ['a seller id list that is a string', 'POST', { exclude_seller_ids: 'seller-good' }, 'exclude_seller_ids'],
  ['51 excluded sellers', 'POST', { exclude_seller_ids: Array.from({ length: 51 }, (_, i) => `seller-${i}`) }, 'exclude_seller_ids'],
  ['a rating above 5', 'PATCH', { min_competitor_rating: 7 }, 'min_competitor_rating'],
  ['a leadtime of days and a half', 'PATCH', { max_competitor_leadtime_days: 1.5 }, 'max_competitor_leadtime_days'],
  ['a number among the seller ids', 'PATCH', { exclude_seller_ids: ['seller-good', 7] }, 'exclude_seller_ids.1'],
])('refuses %s with a 400 naming the field', async (_, method, body, field) => {
  // Arrange
  const path =
    method === 'POST'
      ? '/v1/repricers/'
      : `/v1/repricers/${(await (patchTarget ??= create({ product_code: 'F-3', preferred_price: 60, preferred_profit: 10 }))).id}`;
  const sent = method === 'POST' ? { product_code: 'F-3', preferred_price: 60, preferred_profit: 10, ...body } : body;

  // Act
  const response = await api.request<Problem>(method, path, { auth: alice, body: sent, headers: json });

  // Assert
  expect(response.status).toBe(400);
  expect(response.body.errors?.map((error) => error.field)).toContain(field);
});
