import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { canonicalPriceChanges, type PriceChange } from '../support/repricing.js';
import { step } from '../support/story.js';
import { scanTable } from '../support/table-snapshot.js';

/**
 * GET /v1/repricers/{id}/preview end to end (docs/repricing.md, "Preview and explanation"): it
 * answers what the evaluator then decides from the same inputs, explains it, and writes nothing.
 * What-if previews: POST /v1/repricers/preview with a create body, and the GET preview's query
 * overrides, answer what a stored repricer with those fields would, and store nothing.
 * Responses are checked against the OpenAPI document by the test API.
 *
 * Each product (floor 48.24, on the grid 49; ceiling 60): Alice's offer at 55, and five other offers:
 *   ebay 40 (another connector)  gone 45 (not buyable)  outlet 50 (excluded seller)  junk 52 (rating 2.1)  good 58
 */
let api: TestApi;
const alice: [string, string] = ['preview-alice', 'alice-password-1'];
const bob: [string, string] = ['preview-bob', 'bob-password-1'];
let aliceId: string;

/** One product of that layout per test, so each test's preview and decisions are its own whatever the order. */
const rival = (code: string, name: string, price: number, overrides: Record<string, unknown> = {}) =>
  offerRecord(`${code}-${name}`, code, { seller_id: `seller-${name}`, seller_name: name, offer_price: price, rating_avg: 4.6, ...overrides });
const catalogue = (code: string) => [
  productRecord(code, { fee_estimates: { amazon: fees(5, 15) } }),
  offerRecord(`${code}-own`, code, { seller_id: 'seller-p', offer_price: 55 }),
  rival(code, 'ebay', 40, { connector: 'ebay' }),
  rival(code, 'gone', 45, { offer_status: 'not_buyable' }),
  rival(code, 'outlet', 50),
  rival(code, 'junk', 52, { rating_avg: 2.1 }),
  rival(code, 'good', 58),
];

const json = { 'content-type': 'application/json' };
type Repricer = { id: number } & Record<string, unknown>;
interface Preview {
  repricer_id: number;
  product_code: string;
  enabled: boolean;
  offers: { offer_id: string; current_price: number; would_decide: number | null }[];
  target: { final_price: number | null; reason: string | null } & Record<string, unknown>;
}

const decisions = async () => (await canonicalPriceChanges(api.tableName, aliceId)).map((item) => item.record);
/** Runs the action and answers the price changes it made appear, once the stream has settled. */
const decidedBy = async (action: () => Promise<unknown>): Promise<PriceChange[]> => {
  const before = new Set((await decisions()).map((change) => change.id));
  await action();
  await api.settle();
  return (await decisions()).filter((change) => !before.has(change.id));
};

const patch = async (repricer: Repricer, body: Record<string, unknown>) => {
  const response = await api.request<Repricer>('PATCH', `/v1/repricers/${repricer.id}`, { auth: alice, body, headers: json });
  if (response.status !== 200) throw new Error(`PATCH answered ${response.status}: ${response.text}`);
};
const preview = async (id: number, auth = alice) => api.request<Preview>('GET', `/v1/repricers/${id}/preview`, { auth });
/** A preview, with the table scanned before and after it once every stream record is handled. */
const previewWritingNothing = async (repricer: Repricer) => {
  await api.settle();
  const before = await scanTable(api.tableName);
  const response = await preview(repricer.id);
  await api.settle();
  expect(await scanTable(api.tableName)).toEqual(before);
  expect(response.status).toBe(200);
  return response.body;
};

/** The product's repricer, created with filters; its first decision is one step under good (58), the lowest competitor left. */
const repricerOf = async (code: string): Promise<Repricer> => {
  let repricer: Repricer | undefined;
  const appeared = await decidedBy(async () => {
    const response = await api.request<Repricer>('POST', '/v1/repricers/', {
      auth: alice,
      body: { product_code: code, preferred_price: 60, preferred_profit: 10, exclude_seller_ids: ['seller-outlet'], min_competitor_rating: 4 },
      headers: json,
    });
    if (response.status !== 201) throw new Error(`Creating a repricer answered ${response.status}: ${response.text}`);
    repricer = response.body;
  });
  if (appeared.length !== 1 || appeared[0]!.new_price !== 57) throw new Error(`Unexpected first decision: ${JSON.stringify(appeared)}`);
  return repricer!;
};

beforeAll(async () => {
  api = await startTestApi();
  aliceId = (await api.createClient(alice[0], { password: alice[1], sellerId: 'seller-p', connector: 'amazon' })).clientId;
  await api.createClient(bob[0], { password: bob[1], sellerId: 'seller-q', connector: 'amazon' });
  await api.importRecords(alice[0], [connectorRecord('amazon'), connectorRecord('ebay'), ...catalogue('P-1'), ...catalogue('P-2'), ...catalogue('P-3')]);
}, 120_000);

afterAll(async () => api?.close());

it('explains the target, skips what was already decided, and writes nothing', async () => {
  // Arrange
  const repricer = await repricerOf('P-1');

  // Act
  const body = await previewWritingNothing(repricer);

  // Assert
  expect(body).toEqual({
    repricer_id: repricer.id,
    product_code: 'P-1',
    enabled: true,
    // 57 is the last decision for the offer: the engine would not decide it again.
    offers: [{ offer_id: 'P-1-own', current_price: 55, would_decide: null }],
    target: {
      approach: { buybox_approach: 'cheapest', repricer_approach: 'fixed' },
      competitors: {
        considered: [{ offer_id: 'P-1-good', seller_id: 'seller-good', price: 58 }],
        excluded: [
          { offer_id: 'P-1-ebay', seller_id: 'seller-ebay', price: 40, by: 'other_connector' },
          { offer_id: 'P-1-gone', seller_id: 'seller-gone', price: 45, by: 'not_buyable' },
          { offer_id: 'P-1-outlet', seller_id: 'seller-outlet', price: 50, by: 'exclude_seller_ids' },
          { offer_id: 'P-1-junk', seller_id: 'seller-junk', price: 52, by: 'min_competitor_rating' },
        ],
      },
      competitor_counts: { considered: 1, excluded: 4 },
      own_stock_status: 'in_stock',
      in_stock_premium: null,
      price_step: 1,
      steps: [{ rule: 'undercut', offer_id: 'P-1-good', seller_id: 'seller-good', price: 58, stock_status: 'in_stock', premium_percent: null, limit: 57 }],
      raw_target: 57,
      bounds: [
        { bound: 'floor', value: 49, applied: false },
        { bound: 'ceiling', value: 60, applied: false },
      ],
      final_price: 57,
      reason: 'undercut',
    },
    // No connection: the imported offers are the market.
    market: { state: 'not_watched', reason: null, read_at: null, note: null },
    // No price-war guard: nothing held.
    holds: [],
  });
});

it('previews what the evaluator then decides from the same inputs', async () => {
  const repricer = await repricerOf('P-2');
  let previewed: Preview | undefined;
  await step('disabled, a competitor drops under the floor: nothing is decided, the preview says what would be', async () => {
    // Act
    const appeared = await decidedBy(async () => {
      await patch(repricer, { enabled: false });
      await api.importRecords(alice[0], [rival('P-2', 'good', 49.5)]);
    });
    previewed = await previewWritingNothing(repricer);

    // Assert
    expect(appeared).toEqual([]);
    expect(previewed).toMatchObject({ enabled: false, offers: [{ offer_id: 'P-2-own', current_price: 55, would_decide: 49 }] });
    expect(previewed.target).toMatchObject({
      raw_target: 48,
      bounds: [
        { bound: 'floor', value: 49, applied: true },
        { bound: 'ceiling', value: 60, applied: false },
      ],
      final_price: 49,
      reason: 'floor',
    });
  });

  await step('enabled again: the decision recorded is the one previewed', async () => {
    // Act
    const appeared = await decidedBy(() => patch(repricer, { enabled: true }));

    // Assert
    expect(appeared.map((change) => [change.offer_id, change.new_price, change.reason])).toEqual([
      [previewed!.offers[0]!.offer_id, previewed!.offers[0]!.would_decide, previewed!.target.reason],
    ]);
  });

  await step('decided: the preview now skips it', async () => {
    const body = await previewWritingNothing(repricer);
    expect(body.offers).toEqual([{ offer_id: 'P-2-own', current_price: 55, would_decide: null }]);
    expect(body.target).toMatchObject({ final_price: 49, reason: 'floor' });
  });
});

it("answers 404 for another client's repricer and for an unknown one", async () => {
  // Arrange
  const repricer = await repricerOf('P-3');

  // Act
  const others = await preview(repricer.id, bob);
  const unknown = await preview(repricer.id + 1000);

  // Assert
  expect(others.status).toBe(404);
  expect(unknown.status).toBe(404);
  expect(others.body).toEqual(unknown.body);
});

describe('what-if previews', () => {
  const BODY = { product_code: 'P-4', preferred_price: 60, preferred_profit: 10, exclude_seller_ids: ['seller-outlet'], min_competitor_rating: 4 };
  let stored: Repricer;

  /** A request answered with the table unchanged once every stream record is handled. */
  const writingNothing = async <T>(request: () => Promise<T>): Promise<T> => {
    await api.settle();
    const before = await scanTable(api.tableName);
    const response = await request();
    await api.settle();
    expect(await scanTable(api.tableName)).toEqual(before);
    return response;
  };
  const previewBody = (body: Record<string, unknown>, auth = alice) => api.request<Preview>('POST', '/v1/repricers/preview', { auth, body, headers: json });
  const previewWith = (id: number, query: string) => api.request<Preview>('GET', `/v1/repricers/${id}/preview?${query}`, { auth: alice });

  beforeAll(async () => {
    await api.importRecords(alice[0], catalogue('P-4'));
    // Disabled: it decides nothing, so a stored repricer and one only described have the same (no) last decision.
    const created = await api.request<Repricer>('POST', '/v1/repricers/', { auth: alice, body: { ...BODY, enabled: false }, headers: json });
    if (created.status !== 201) throw new Error(`Creating a repricer answered ${created.status}: ${created.text}`);
    stored = created.body;
  });

  it('answers for a body what the GET preview answers for a stored repricer with the same fields, and writes nothing', async () => {
    // Act
    const described = await writingNothing(() => previewBody({ ...BODY, enabled: false }));
    const ofStored = await preview(stored.id);

    // Assert
    expect(described.status).toBe(200);
    expect(described.body).toEqual({ ...ofStored.body, repricer_id: null });
    expect(described.body.offers).toEqual([{ offer_id: 'P-4-own', current_price: 55, would_decide: 57 }]);
  });

  it('answers for overrides what a body with those fields answers, and writes nothing', async () => {
    // Act: without the rating filter, junk (52) is the lowest competitor; a larger profit gap lowers the floor under it.
    const overridden = await writingNothing(() => previewWith(stored.id, 'min_competitor_rating=null&preferred_profit=15'));
    const described = await previewBody({ ...BODY, enabled: false, min_competitor_rating: null, preferred_profit: 15 });

    // Assert
    expect(overridden.status).toBe(200);
    expect(overridden.body).toEqual({ ...described.body, repricer_id: stored.id });
    expect(overridden.body.target).toMatchObject({ raw_target: 51, final_price: 51, reason: 'undercut' });
    // The stored repricer is as it was.
    expect((await api.request<Repricer>('GET', `/v1/repricers/${stored.id}`, { auth: alice })).body).toEqual(stored);
  });

  it('refuses a bad body or override with 400 naming the field, an unknown product with 404, and stores nothing', async () => {
    // Act
    const answers = await writingNothing(() =>
      Promise.all([
        previewBody({ ...BODY, buybox_approach: 'nope' }),
        previewBody({ ...BODY, colour: 'red' }),
        previewBody({ ...BODY, preferred_price: 'cheap' }),
        previewWith(stored.id, 'buybox_approach=nope'),
        previewWith(stored.id, 'min_price=80'),
        previewWith(stored.id, 'exclude_seller_ids=a&exclude_seller_ids=b'),
        previewBody({ ...BODY, product_code: 'P-404' }),
        previewWith(stored.id, 'preferred_profit=70'),
      ]),
    );

    // Assert
    const fields = (response: { status: number; body: unknown }) => [
      response.status,
      ((response.body as { errors?: { field: string }[] }).errors ?? []).map((e) => e.field),
    ];
    expect(answers.map(fields)).toEqual([
      [400, ['buybox_approach']],
      [400, ['colour']],
      [400, ['preferred_price']],
      [400, ['buybox_approach']],
      [400, ['min_price']],
      [400, ['exclude_seller_ids']],
      [404, []],
      // A profit the price cannot carry: refused as a PATCH refuses it.
      [422, []],
    ]);
  });

  it("previews another client's product as unknown", async () => {
    const response = await previewBody(BODY, bob);
    expect(response.status).toBe(404);
  });
});
