import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';

/**
 * GET /v1/repricers/{id}/stats end to end (docs/repricing.md, "Outcomes"): the own offer's
 * states are recorded from the change stream whenever a write moves its slots or price, and the
 * stats measure time from them, stamped with the offer's `updated_at`; price changes are counted
 * by status and reason within the range. Responses are checked against the OpenAPI document by
 * the test API. (The market loop checks the shares against the simulator: market-loop.test.ts.)
 */
let api: TestApi;
const alice: [string, string] = ['stats-alice', 'alice-password-1'];
const bob: [string, string] = ['stats-bob', 'bob-password-1'];
const json = { 'content-type': 'application/json' };

type Slot = { seconds: number; share: number | null };
interface Stats {
  repricer_id: number;
  observed_seconds: number;
  best_price: Slot;
  fastest_delivery: Slot;
  at_floor: Slot;
  average_over_floor: number | null;
  offers: { offer_id: string; changes: number }[];
  price_changes: { total: number; by_status: Record<string, number>; by_reason: Record<string, number> };
}
type Problem = { errors?: { field: string }[] };

const own = (winning: boolean, price = 55) => offerRecord('S-1-own', 'S-1', { seller_id: 'seller-p', offer_price: price, winning, winning_delivery: false });
/** The own offer's `updated_at` as served: when the service saw the write. */
const ownUpdatedAt = async (): Promise<number> => {
  const page = await api.request<{ offers: { offer_id: string; updated_at: string }[] }>('GET', '/v1/offers', { auth: alice });
  return Date.parse(page.body.offers.find((offer) => offer.offer_id === 'S-1-own')!.updated_at);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stats = (id: number, query: string, auth = alice) => api.request<Stats & Problem>('GET', `/v1/repricers/${id}/stats?${query}`, { auth });
const range = (from: number, to: number) => `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;

let repricerId: number;
/** When the own offer started and stopped holding Best Price, as the service stamped it. */
let won: number;
let lost: number;
let start: number;

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(alice[0], { password: alice[1], sellerId: 'seller-p', connector: 'amazon' });
  await api.createClient(bob[0], { password: bob[1], sellerId: 'seller-q', connector: 'amazon' });
  start = Date.now();
  // min_price 48.24 (49 on the grid), ceiling 60: one rival at 58, so the repricer undercuts it once (57).
  await api.importRecords(alice[0], [
    connectorRecord('amazon'),
    productRecord('S-1', { fee_estimates: { amazon: fees(5, 15) } }),
    own(false),
    offerRecord('S-1-rival', 'S-1', { seller_id: 'seller-r', offer_price: 58, rating_avg: 4.6 }),
  ]);
  const created = await api.request<{ id: number }>('POST', '/v1/repricers/', {
    auth: alice,
    body: { product_code: 'S-1', preferred_price: 60, preferred_profit: 10 },
    headers: json,
  });
  if (created.status !== 201) throw new Error(`Creating a repricer answered ${created.status}: ${created.text}`);
  repricerId = created.body.id;
  await api.settle();
  // The own offer wins Best Price for a while, then loses it (imports, as a sync's writes, move the flags).
  await sleep(300);
  await api.importRecords(alice[0], [own(true)]);
  await api.settle();
  won = await ownUpdatedAt();
  await sleep(1_200);
  await api.importRecords(alice[0], [own(false)]);
  await api.settle();
  lost = await ownUpdatedAt();
  await sleep(300);
}, 120_000);

afterAll(async () => api?.close());

it('measures the time in the Best Price slot from the recorded states, and counts the decision', async () => {
  // Act
  const to = Date.now();
  const response = await stats(repricerId, range(start - 1_000, to));

  // Assert
  expect(response.status).toBe(200);
  const body = response.body;
  expect(body.repricer_id).toBe(repricerId);
  // From the first state (the import) to the end of the range.
  expect(body.observed_seconds).toBeGreaterThan(0);
  expect(body.best_price.seconds).toBe((lost - won) / 1000);
  expect(body.best_price.share).toBeCloseTo((lost - won) / 1000 / body.observed_seconds, 10);
  expect(body.fastest_delivery.seconds).toBe(0);
  // 55 the whole time (the decision is a suggestion: no connection sends it), min_price 48.24: never at the floor, 6.76 over it.
  expect(body.at_floor.seconds).toBe(0);
  expect(body.average_over_floor).toBe(6.76);
  expect(body.offers).toEqual([expect.objectContaining({ offer_id: 'S-1-own', changes: 3 })]);
  expect(body.price_changes.total).toBe(1);
  expect(body.price_changes.by_reason.undercut).toBe(1);
  expect(Object.values(body.price_changes.by_status).reduce((a, b) => a + b, 0)).toBe(1);
});

it('clips the time to the range: inside the win, all of it held; after it, none', async () => {
  const inside = await stats(repricerId, range(won + 200, lost - 200));
  const after = await stats(repricerId, range(lost + 1, Date.now()));
  expect(inside.body).toMatchObject({ observed_seconds: (lost - won - 400) / 1000, best_price: { share: 1 }, price_changes: { total: 0 } });
  expect(after.body).toMatchObject({ best_price: { seconds: 0, share: 0 }, offers: [{ changes: 0 }] });
});

it('refuses a bad range with 400 naming the parameter, and answers 404 for another client', async () => {
  const now = Date.now();
  const answers = await Promise.all([
    stats(repricerId, 'from=yesterday'),
    stats(repricerId, range(now - 1_000, now - 2_000)),
    stats(repricerId, range(now - 40 * 86_400_000, now)),
    stats(repricerId, 'colour=red'),
    stats(repricerId, range(now - 1_000, now), bob),
  ]);
  expect(answers.map((answer) => [answer.status, (answer.body.errors ?? []).map((error) => error.field)])).toEqual([
    [400, ['from']],
    [400, ['to']],
    [400, ['from']],
    [400, ['colour']],
    [404, []],
  ]);
});
