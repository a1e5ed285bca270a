import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { allPages, canonicalPriceChanges, type PriceChange } from '../support/repricing.js';

/**
 * At-least-once delivery: the local event runtime hands every stream batch to the forwarder
 * twice and every queue batch to the list maintainer and the repricing evaluator twice, as
 * Lambda's event sources may. The same story told to a runtime that delivers once is the
 * oracle: the decisions recorded, and the lists' totals, must be exactly those of single
 * delivery, with 0 duplicate decisions.
 */
let twice: TestApi;
const alice: [string, string] = ['dup-alice', 'dup-alice-password'];
const invocations = new Map<string, number>();

const own = (offerId: string, code: string, price: number) => offerRecord(offerId, code, { seller_id: 'seller-a', offer_price: price });
const rival = (offerId: string, code: string, price: number) =>
  offerRecord(offerId, code, { seller_id: `seller-${offerId.toLowerCase()}`, offer_price: price });
const CODES = ['D-1', 'D-2', 'D-3'];

/** Creates, price moves down, up and back, a replayed import, a disable; the decisions recorded. */
const tellTheStory = async (api: TestApi): Promise<{ decisions: PriceChange[]; repricerIds: number[] }> => {
  const clientId = (await api.createClient(alice[0], { password: alice[1], sellerId: 'seller-a', connector: 'amazon' })).clientId;
  await api.importRecords(alice[0], [
    connectorRecord('amazon'),
    ...CODES.map((code) => productRecord(code, { fee_estimates: { amazon: fees(5, 15) } })),
    ...CODES.flatMap((code, i) => [own(`${code}-own`, code, 55 + i), rival(`${code}-c1`, code, 58)]),
  ]);
  const repricerIds: number[] = [];
  for (const code of CODES) {
    const response = await api.request<{ id: number }>('POST', '/v1/repricers/', {
      auth: alice,
      body: { product_code: code, preferred_price: 60, preferred_profit: 10 },
    });
    expect(response.status).toBe(201);
    repricerIds.push(response.body.id);
  }
  await api.settle();
  await api.importRecords(
    alice[0],
    CODES.map((code) => rival(`${code}-c1`, code, 52.5)),
  );
  await api.importRecords(alice[0], [rival('D-1-c1', 'D-1', 30), rival('D-2-c1', 'D-2', 80)]);
  await api.importRecords(alice[0], [rival('D-1-c1', 'D-1', 30), rival('D-2-c1', 'D-2', 80)]);
  await api.importRecords(alice[0], [rival('D-1-c1', 'D-1', 52.5)]);
  const patched = await api.request('PATCH', `/v1/repricers/${repricerIds[2]}`, { auth: alice, body: { enabled: false } });
  expect(patched.status).toBe(200);
  await api.settle();
  await api.importRecords(alice[0], [rival('D-3-c1', 'D-3', 40)]);
  const decisions = (await canonicalPriceChanges(api.tableName, clientId)).map((item) => item.record);
  return { decisions, repricerIds };
};

/** A decision without what differs between two runs (ids, uids and clocks). */
const told = (change: PriceChange) => [change.product_code, change.offer_id, change.old_price, change.new_price, change.reason, change.lowest_competitor_price];
const byProduct = (changes: PriceChange[]) => CODES.map((code) => changes.filter((change) => change.product_code === code).map(told));

// One API at a time: the handlers find their table in the process's environment.
afterAll(async () => twice?.close());

describe('every event delivered twice', () => {
  it('records each decision once: 0 duplicate decisions, exact list totals', async () => {
    // Arrange: what single delivery records
    const once = await startTestApi();
    const expected = await tellTheStory(once).finally(() => once.close());
    expect(expected.decisions.length).toBeGreaterThanOrEqual(6);
    // the disabled repricer stayed silent about the last move
    expect(expected.decisions.filter((change) => change.product_code === 'D-3' && change.lowest_competitor_price === 40)).toEqual([]);

    // Act
    twice = await startTestApi({
      events: { deliverTwice: true, onInvoke: (name) => invocations.set(name, (invocations.get(name) ?? 0) + 1) },
    });
    const { decisions, repricerIds } = await tellTheStory(twice);

    // Assert: the decisions of single delivery, in the same order per product, each once
    expect(byProduct(decisions)).toEqual(byProduct(expected.decisions));
    const keys = decisions.map((change) => `${change.repricer_id}|${change.offer_id}|${change.created_at}|${change.new_price}`);
    expect(new Set(keys).size).toBe(keys.length);
    // and listed once each
    const listed = await allPages(twice, alice, '/v1/price-changes', 3);
    expect(listed).toEqual(decisions);
    for (const id of repricerIds) {
      const mine = decisions.filter((change) => change.repricer_id === id);
      const page = await twice.request<{ meta: { total: number } }>('GET', `/v1/repricers/${id}/price-changes`, { auth: alice });
      expect(page.body.meta.total).toBe(mine.length);
    }
    // and every handler did get each batch twice
    for (const name of ['change-forwarder', 'list-maintainer', 'repricing-evaluator']) {
      expect(invocations.get(name)).toBeGreaterThanOrEqual(2);
      expect((invocations.get(name) ?? 0) % 2).toBe(0);
    }
  }, 180_000);
});
