import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type ApiResponse, type TestApi } from '../support/local-api.js';
import { allPages, canonicalPriceChanges, deleteItem, putItem, type PriceChange, type PriceChangePage } from '../support/repricing.js';
import { step } from '../support/story.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Automated repricing end to end (docs/repricing.md): imports and repricer writes
 * reach the evaluator through the table's stream and the FIFO queue, decisions are recorded as
 * price changes, and both price-change lists serve them with every filter and sort, exact
 * totals and tenant isolation. Every response is checked against the OpenAPI document.
 *
 * Alice's decisions, in order (amazon and ebay step 1.00, `fine` step 0.05):
 *   1 R-1 57 undercut (created)       2 R-2 19.95 no_competition (created)   3 R-4 27 floor (created)
 *   4 R-1 51 undercut                 5 R-1 49 floor                          6 R-1 60 ceiling
 *   7 R-2 18.95 undercut              8 R-2 17.80 floor                       9 R-4 28 undercut
 *  10 R-1 49 undercut (re-enabled)
 */
let api: TestApi;
const alice: [string, string] = ['repricing-alice', 'alice-password-1'];
const bob: [string, string] = ['repricing-bob', 'bob-password-1'];
let aliceId: string;
let bobId: string;

type Repricer = { id: number; min_price: number; preferred_price: number; enabled: boolean };
const repricers: Record<string, Repricer> = {};
let bobRepricer: Repricer;

const own = (offerId: string, code: string, price: number, overrides: Record<string, unknown> = {}) =>
  offerRecord(offerId, code, { seller_id: 'seller-a', seller_name: 'Alice', offer_price: price, ...overrides });
const rival = (offerId: string, code: string, price: number, overrides: Record<string, unknown> = {}) =>
  offerRecord(offerId, code, { seller_id: `seller-${offerId.toLowerCase()}`, seller_name: 'Rival', offer_price: price, ...overrides });

const catalogue = [
  productRecord('R-1', { fee_estimates: { amazon: fees(5, 15) } }),
  productRecord('R-2', { fee_estimates: { fine: fees(1, 10) } }),
  productRecord('R-3', { fee_estimates: { amazon: fees(5, 15) } }),
  productRecord('R-4', { fee_estimates: null }),
  own('R1-own', 'R-1', 55),
  rival('R1-c1', 'R-1', 58),
  rival('R1-c2', 'R-1', 40, { connector: 'ebay' }),
  rival('R1-c3', 'R-1', 45, { offer_status: 'not_buyable' }),
  own('R2-own', 'R-2', 18, { connector: 'fine' }),
  own('R3-own', 'R-3', 30),
  rival('R3-c1', 'R-3', 20),
  own('R4-own', 'R-4', 25),
  rival('R4-c1', 'R-4', 24.2),
];

const json = { 'content-type': 'application/json' };
const createRepricer = async (auth: [string, string], body: Record<string, unknown>): Promise<Repricer> => {
  const response = await api.request<Repricer>('POST', '/v1/repricers/', { auth, body, headers: json });
  if (response.status !== 201) throw new Error(`Creating a repricer answered ${response.status}: ${response.text}`);
  return response.body;
};
const patchRepricer = async (id: number, body: Record<string, unknown>) => {
  const response = await api.request<Repricer>('PATCH', `/v1/repricers/${id}`, { auth: alice, body, headers: json });
  expect(response.status).toBe(200);
  await api.settle();
};
const list = (path: string, auth = alice) => api.request<PriceChangePage>('GET', path, { auth });
const decisionsOf = async (clientId = aliceId) => (await canonicalPriceChanges(api.tableName, clientId)).map((item) => item.record);
const summary = (change: PriceChange) => [change.product_code, change.new_price, change.reason];

/** Imports lines for Alice and returns the price changes that appeared. */
const importAndDecide = async (...records: unknown[]): Promise<PriceChange[]> => {
  const before = new Set((await decisionsOf()).map((change) => change.id));
  await api.importRecords(alice[0], records);
  return (await decisionsOf()).filter((change) => !before.has(change.id));
};

beforeAll(async () => {
  api = await startTestApi();
  aliceId = (await api.createClient(alice[0], { password: alice[1], sellerId: 'seller-a', connector: 'amazon' })).clientId;
  bobId = (await api.createClient(bob[0], { password: bob[1], sellerId: 'seller-b', connector: 'amazon' })).clientId;
  await api.importRecords(alice[0], [connectorRecord('amazon'), connectorRecord('ebay'), connectorRecord('fine', { price_step: 0.05 }), ...catalogue]);
  await api.importRecords(bob[0], [
    productRecord('R-1', { fee_estimates: { amazon: fees(5, 15) } }),
    offerRecord('R1-own', 'R-1', { seller_id: 'seller-b', offer_price: 55 }),
    offerRecord('R1-c1', 'R-1', { seller_id: 'seller-x', offer_price: 58 }),
  ]);
}, 120_000);

let warReceiver: WebhookReceiver | undefined;
afterAll(async () => {
  await api?.close();
  await warReceiver?.close();
});

/**
 * The story of one client's repricers, step by step (each step builds on the ones before). Told
 * once, whichever test needs it first: the price-change lists below read what it recorded.
 */
let told: Promise<void> | undefined;
const tellTheStory = (): Promise<void> =>
  (told ??= (async () => {
    await step('decides when a repricer is created: undercut, no competition on a 0.05 grid, floor; a disabled one stays silent', async () => {
      // Act
      repricers['R-1'] = await createRepricer(alice, { product_code: 'R-1', preferred_price: 60, preferred_profit: 10 });
      repricers['R-2'] = await createRepricer(alice, { product_code: 'R-2', preferred_price: 19.99, preferred_profit: 2 });
      repricers['R-3'] = await createRepricer(alice, { product_code: 'R-3', preferred_price: 40, preferred_profit: 5, enabled: false });
      repricers['R-4'] = await createRepricer(alice, { product_code: 'R-4', preferred_price: 30, preferred_profit: 3 });
      bobRepricer = await createRepricer(bob, { product_code: 'R-1', preferred_price: 60, preferred_profit: 10 });
      await api.settle();

      // Assert
      expect([repricers['R-1'].min_price, repricers['R-2'].min_price, repricers['R-4'].min_price]).toEqual([48.24, 17.77, 27]);
      // One decision per product; which product's decision takes the smaller id depends on
      // which evaluation finishes first, so they are compared by product.
      const decisions = (await decisionsOf()).sort((x, y) => x.product_code.localeCompare(y.product_code));
      expect(decisions.map(summary)).toEqual([
        ['R-1', 57, 'undercut'],
        ['R-2', 19.95, 'no_competition'],
        ['R-4', 27, 'floor'],
      ]);
      // The lowest buyable competitor on the repricer's connector: not R1-c2 (ebay) nor R1-c3 (not buyable)
      expect(decisions[0]).toMatchObject({
        repricer_id: repricers['R-1'].id,
        offer_id: 'R1-own',
        product_code: 'R-1',
        connector: 'amazon',
        old_price: 55,
        new_price: 57,
        reason: 'undercut',
        lowest_competitor_price: 58,
        competitor_offer_id: 'R1-c1',
      });
      expect(decisions[1]).toMatchObject({ connector: 'fine', old_price: 18, lowest_competitor_price: null, competitor_offer_id: null });
      expect((await decisionsOf(bobId)).map(summary)).toEqual([['R-1', 57, 'undercut']]);
    });
    await step("lists the price change at both endpoints once the competitor's price is imported", async () => {
      // Act
      const appeared = await importAndDecide(rival('R1-c1', 'R-1', 52.5));
      const tenantList = await list('/v1/price-changes?_sort=id:DESC&_limit=1');
      const repricerList = await list(`/v1/repricers/${repricers['R-1']!.id}/price-changes?_sort=created_at:DESC&_limit=1`);

      // Assert
      expect(appeared.map(summary)).toEqual([['R-1', 51, 'undercut']]);
      expect(appeared[0]).toMatchObject({ old_price: 55, lowest_competitor_price: 52.5, competitor_offer_id: 'R1-c1' });
      expect(tenantList.body.price_changes).toEqual(appeared);
      expect(repricerList.body.price_changes).toEqual(appeared);
      expect(repricerList.body.meta).toEqual({ total: 2, limit: 1, start: 0 });
    });
    await step('stores the explanation of the decision with it, and shows it in both lists', async () => {
      // Act
      const [latest] = (await list('/v1/price-changes?_sort=id:DESC&_limit=1')).body.price_changes;
      const [ofRepricer] = (await list(`/v1/repricers/${repricers['R-1']!.id}/price-changes?_sort=id:DESC&_limit=1`)).body.price_changes;

      // Assert: the ebay and the unbuyable offers excluded, one step under the buyable one
      expect(latest!.explanation).toMatchObject({
        approach: { buybox_approach: 'cheapest', repricer_approach: 'fixed' },
        competitor_counts: { considered: 1, excluded: 2 },
        steps: [{ rule: 'undercut', offer_id: 'R1-c1', price: 52.5, limit: 51 }],
        raw_target: 51,
        final_price: 51,
        reason: 'undercut',
      });
      expect(ofRepricer).toEqual(latest);
    });
    await step('never goes under the floor: a competitor below it gets the floor, rounded up to the grid', async () => {
      const appeared = await importAndDecide(rival('R1-c1', 'R-1', 30));
      expect(appeared).toMatchObject([{ product_code: 'R-1', old_price: 55, new_price: 49, reason: 'floor', lowest_competitor_price: 30 }]);
    });
    await step('follows a competitor that raises its price back, up to the ceiling', async () => {
      const appeared = await importAndDecide(rival('R1-c1', 'R-1', 80));
      expect(appeared).toMatchObject([{ product_code: 'R-1', new_price: 60, reason: 'ceiling', lowest_competitor_price: 80 }]);
    });
    await step('decides nothing when the marketplace applies the decided price (no loop)', async () => {
      expect(await importAndDecide(own('R1-own', 'R-1', 60))).toEqual([]);
    });
    await step('records nothing when the same import is replayed, nor when a sync rewrites offers with the same prices', async () => {
      // Act
      const replayed = await importAndDecide(rival('R1-c1', 'R-1', 80), own('R1-own', 'R-1', 60));
      const resynced = await importAndDecide(rival('R1-c1', 'R-1', 80, { total_competitors: 9 }), own('R1-own', 'R-1', 60, { competitiveness: 'low' }));

      // Assert
      expect([replayed, resynced]).toEqual([[], []]);
    });
    await step("prices on the connector's 0.05 grid: undercut, then the floor rounded up to it", async () => {
      const undercut = await importAndDecide(rival('R2-c1', 'R-2', 19.03, { connector: 'fine' }));
      const floor = await importAndDecide(rival('R2-c1', 'R-2', 15, { connector: 'fine' }));
      expect([...undercut, ...floor].map((change) => [change.connector, change.old_price, change.new_price, change.reason])).toEqual([
        ['fine', 18, 18.95, 'undercut'],
        ['fine', 18, 17.8, 'floor'],
      ]);
    });
    await step("reprices a product without fee estimates on the client's default connector", async () => {
      const appeared = await importAndDecide(rival('R4-c1', 'R-4', 29.99));
      expect(appeared).toMatchObject([{ product_code: 'R-4', connector: 'amazon', old_price: 25, new_price: 28, reason: 'undercut' }]);
    });
    await step('leaves a disabled repricer silent, whatever its competitors do', async () => {
      // Act
      const r3 = await importAndDecide(rival('R3-c1', 'R-3', 12), rival('R3-c2', 'R-3', 11));
      await patchRepricer(repricers['R-1']!.id, { enabled: false });
      const r1 = await importAndDecide(rival('R1-c1', 'R-1', 50));

      // Assert
      expect([r3, r1]).toEqual([[], []]);
    });
    await step('decides again when the repricer is enabled again', async () => {
      // Act
      const before = (await decisionsOf()).length;
      await patchRepricer(repricers['R-1']!.id, { enabled: true });

      // Assert
      const appeared = (await decisionsOf()).slice(before);
      expect(appeared).toMatchObject([{ product_code: 'R-1', old_price: 60, new_price: 49, reason: 'undercut', lowest_competitor_price: 50 }]);
    });
    await step('has recorded exactly the decisions of the story, with ids in creation order, kept for the retention period', async () => {
      // Act
      const stored = await canonicalPriceChanges(api.tableName, aliceId);

      // Assert
      const summaries = stored.map((item) => summary(item.record));
      // The three first decisions come from one step, in whichever order their evaluations ended.
      expect(summaries.slice(0, 3).sort((x, y) => String(x[0]).localeCompare(String(y[0])))).toEqual([
        ['R-1', 57, 'undercut'],
        ['R-2', 19.95, 'no_competition'],
        ['R-4', 27, 'floor'],
      ]);
      expect(summaries.slice(3)).toEqual([
        ['R-1', 51, 'undercut'],
        ['R-1', 49, 'floor'],
        ['R-1', 60, 'ceiling'],
        ['R-2', 18.95, 'undercut'],
        ['R-2', 17.8, 'floor'],
        ['R-4', 28, 'undercut'],
        ['R-1', 49, 'undercut'],
      ]);
      const times = stored.map((item) => item.record.created_at);
      expect([...times].sort()).toEqual(times);
      for (const item of stored)
        expect(item.expiresAt).toBe(Date.parse(item.record.created_at) / 1000 - (Date.parse(item.record.created_at) % 1000) / 1000 + 90 * 86_400);
      expect(new Set(stored.map((item) => item.record.uid)).size).toBe(stored.length);
    });
  })());

describe('automated repricing, end to end', () => {
  it(
    'follows one story of decisions: created, undercut, floor, ceiling, no loop, grid, default connector, disabled and enabled again, all recorded',
    () => tellTheStory(),
    660_000,
  );
});

describe('the price-change lists', () => {
  let all: PriceChange[];
  const byId = (a: PriceChange, b: PriceChange) => a.id - b.id;

  beforeAll(async () => {
    await tellTheStory();
    all = (await decisionsOf()).sort(byId);
  }, 660_000);

  const expectPage = (response: ApiResponse<PriceChangePage>, expected: PriceChange[], start: number, limit: number) => {
    expect(response.status).toBe(200);
    expect(response.body.meta).toEqual({ total: expected.length, limit, start });
    expect(response.body.price_changes).toEqual(expected.slice(start, start + limit));
  };

  const filters = (): { query: string; matches: (change: PriceChange) => boolean }[] => [
    { query: '', matches: () => true },
    ...(['undercut', 'floor', 'ceiling', 'no_competition'] as const).map((reason) => ({
      query: `reason=${reason}`,
      matches: (c: PriceChange) => c.reason === reason,
    })),
    ...['R-1', 'R-2', 'R-3', 'R-4', 'NOPE'].map((code) => ({ query: `product_code=${code}`, matches: (c: PriceChange) => c.product_code === code })),
    ...['R-1', 'R-2', 'R-3'].map((code) => ({
      query: `repricer_id=${repricers[code]!.id}`,
      matches: (c: PriceChange) => c.repricer_id === repricers[code]!.id,
    })),
    { query: 'product_code=R-1&reason=undercut', matches: (c) => c.product_code === 'R-1' && c.reason === 'undercut' },
    { query: `repricer_id=${repricers['R-2']?.id}&reason=floor`, matches: (c) => c.repricer_id === repricers['R-2']!.id && c.reason === 'floor' },
    {
      query: `repricer_id=${repricers['R-1']?.id}&product_code=R-1&reason=ceiling`,
      matches: (c) => c.repricer_id === repricers['R-1']!.id && c.reason === 'ceiling',
    },
    { query: `repricer_id=${repricers['R-1']?.id}&product_code=R-2`, matches: () => false },
  ];

  it('serves every filter, alone and combined, with each sort in both directions and exact totals', async () => {
    for (const { query, matches } of filters()) {
      const expected = all.filter(matches);
      for (const [sort, reversed] of [
        ['', false],
        ['_sort=id', false],
        ['_sort=id:DESC', true],
        ['_sort=created_at:asc', false],
        ['_sort=created_at:DESC', true],
      ] as const) {
        const response = await list(`/v1/price-changes?${[query, sort].filter(Boolean).join('&')}`);
        expectPage(response, reversed ? [...expected].reverse() : expected, 0, 100);
      }
    }
  }, 60_000);

  it('pages with _start and _limit, past the end included, without overlap or gap', async () => {
    for (const [query, expected] of [
      ['', all],
      ['reason=undercut', all.filter((c) => c.reason === 'undercut')],
      ['product_code=R-1', all.filter((c) => c.product_code === 'R-1')],
      [`repricer_id=${repricers['R-1']!.id}&_sort=id:DESC`, all.filter((c) => c.repricer_id === repricers['R-1']!.id).reverse()],
    ] as const) {
      for (const [start, limit] of [
        [0, 1],
        [1, 3],
        [2, 2],
        [4, 100],
        [expected.length - 1, 5],
        [expected.length, 5],
        [50, 1],
      ] as const) {
        const response = await list(`/v1/price-changes?${query ? `${query}&` : ''}_start=${start}&_limit=${limit}`);
        expectPage(response, [...expected], start, limit);
      }
    }
    expect(await allPages(api, alice, '/v1/price-changes', 3)).toEqual(all);
  }, 60_000);

  it("serves a repricer's price changes at /v1/repricers/{id}/price-changes, with its filters, sorts and pages", async () => {
    for (const code of ['R-1', 'R-2', 'R-3', 'R-4']) {
      const { id } = repricers[code]!;
      const mine = all.filter((c) => c.repricer_id === id);
      expectPage(await list(`/v1/repricers/${id}/price-changes`), mine, 0, 100);
      expectPage(await list(`/v1/repricers/${id}/price-changes?_sort=created_at:DESC&_start=1&_limit=2`), [...mine].reverse(), 1, 2);
      expectPage(
        await list(`/v1/repricers/${id}/price-changes?reason=floor`),
        mine.filter((c) => c.reason === 'floor'),
        0,
        100,
      );
      expectPage(await list(`/v1/repricers/${id}/price-changes?product_code=${code}&_sort=id`), mine, 0, 100);
      expectPage(await list(`/v1/repricers/${id}/price-changes?product_code=R-9`), [], 0, 100);
    }
    expect(await allPages(api, alice, `/v1/repricers/${repricers['R-1']!.id}/price-changes`, 2)).toEqual(
      all.filter((c) => c.repricer_id === repricers['R-1']!.id),
    );
  }, 60_000);

  it("answers 404 for another client's repricer, an unknown one and a malformed id, and an empty page for ?repricer_id= of another client", async () => {
    // Act
    const others = await Promise.all([`${bobRepricer.id}`, '999999', 'abc', '0'].map((id) => list(`/v1/repricers/${id}/price-changes`)));
    const filtered = await list(`/v1/price-changes?repricer_id=${bobRepricer.id}`);
    const bobsOwn = await list(`/v1/repricers/${bobRepricer.id}/price-changes`, bob);

    // Assert
    expect(others.map((response) => response.status)).toEqual([404, 404, 404, 404]);
    expect(new Set(others.map((response) => response.text)).size).toBe(1);
    expect(filtered.status).toBe(200);
    expect(filtered.body).toEqual({ meta: { total: 0, limit: 100, start: 0 }, price_changes: [] });
    expect(bobsOwn.body.meta.total).toBe(1);
  });

  it("never shows another client's decision, even for the same product code and offer ids", async () => {
    // Arrange
    const bobs = await decisionsOf(bobId);

    // Act
    const pages = [
      ...(await allPages(api, alice, '/v1/price-changes', 4)),
      ...(await allPages(api, alice, '/v1/price-changes?product_code=R-1')),
      ...(await allPages(api, alice, `/v1/repricers/${repricers['R-1']!.id}/price-changes`)),
    ];
    const bobsPages = await allPages(api, bob, '/v1/price-changes');

    // Assert
    expect(bobs.length).toBeGreaterThan(0);
    const bobUids = new Set(bobs.map((change) => change.uid));
    expect(pages.filter((change) => bobUids.has(change.uid))).toEqual([]);
    expect(pages.every((change) => Object.values(repricers).some((r) => r.id === change.repricer_id))).toBe(true);
    expect(bobsPages).toEqual(bobs);
  });

  it.each([
    ['an unknown reason', 'reason=cheaper', 'reason'],
    ['an unsupported sort', '_sort=new_price', '_sort'],
    ['a repricer id that is not a positive integer', 'repricer_id=0', 'repricer_id'],
    ['a limit above 100', '_limit=101', '_limit'],
    ['a negative start', '_start=-1', '_start'],
    ['an unknown parameter', 'offer_id=R1-own', 'offer_id'],
    ['a repeated parameter', 'reason=floor&reason=ceiling', 'reason'],
  ])('refuses %s with a 400 naming it', async (_, query, field) => {
    // Act
    const response = await api.request<{ errors: { field: string }[] }>('GET', `/v1/price-changes?${query}`, { auth: alice });

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error) => error.field)).toContain(field);
  });

  it("refuses repricer_id on a repricer's own list", async () => {
    const response = await list(`/v1/repricers/${repricers['R-1']!.id}/price-changes?repricer_id=1`);
    expect(response.status).toBe(400);
  });

  it('drops a price change whose canonical item is deleted (as TTL deletes it) from both lists and their totals', async () => {
    // Arrange
    const stored = await canonicalPriceChanges(api.tableName, aliceId);
    const expired = stored.find((item) => item.record.reason === 'ceiling')!;
    const r1 = repricers['R-1']!.id;
    const before = [(await list('/v1/price-changes')).body.meta.total, (await list(`/v1/repricers/${r1}/price-changes`)).body.meta.total];

    // Act
    await deleteItem(api.tableName, { pk: expired.pk, sk: expired.sk });
    await api.settle();

    // Assert
    const tenant = await list('/v1/price-changes');
    const repricer = await list(`/v1/repricers/${r1}/price-changes`);
    const ceiling = await list('/v1/price-changes?reason=ceiling');
    expect([tenant.body.meta.total, repricer.body.meta.total]).toEqual([before[0]! - 1, before[1]! - 1]);
    expect([...tenant.body.price_changes, ...repricer.body.price_changes].map((change) => change.id)).not.toContain(expired.record.id);
    expect(ceiling.body).toEqual({ meta: { total: 0, limit: 100, start: 0 }, price_changes: [] });
    expect(tenant.body.price_changes).toEqual(all.filter((change) => change.id !== expired.record.id));

    // Act again: the item back (the other tests of this block read the whole lists, in any order)
    await putItem(api.tableName, expired as unknown as Record<string, unknown>);
    await api.settle();

    // Assert: listed again, as before
    expect((await list('/v1/price-changes')).body.meta.total).toBe(before[0]);
    expect((await list('/v1/price-changes?reason=ceiling')).body.meta.total).toBe(1);
  }, 60_000);
});

describe('the price-war guard', () => {
  const carol: [string, string] = ['repricing-carol', 'carol-password-1'];
  type Hold = { offer_id: string; reason: string; rival_offer_id: string; rival_seller_id: string; since: string; until: string };
  type Received = { event_type: string; event_data: Record<string, unknown> };

  it('holds an offer in a war of undercuts with one rival, says so in the preview and the list, and announces the war once', async () => {
    // Prepare: a repricer that allows 2 undercuts an hour with one rival, and a receiver of PRICE_WAR_DETECTED
    const carolId = (await api.createClient(carol[0], { password: carol[1], sellerId: 'seller-c', connector: 'amazon' })).clientId;
    warReceiver = await startReceiver();
    const hook = await api.request('POST', '/v1/webhooks', { auth: carol, body: { url: warReceiver.url, event_types: ['PRICE_WAR_DETECTED'] }, headers: json });
    expect(hook.status).toBe(201);
    await api.importRecords(carol[0], [
      connectorRecord('amazon'),
      productRecord('W-1', { fee_estimates: null }),
      offerRecord('W1-own', 'W-1', { seller_id: 'seller-c', offer_price: 100 }),
      offerRecord('W1-a', 'W-1', { seller_id: 'seller-wa', offer_price: 99 }),
      offerRecord('W1-b', 'W-1', { seller_id: 'seller-wb', offer_price: 105 }),
    ]);
    const guarded = await api.request<Repricer>('POST', '/v1/repricers/', {
      auth: carol,
      body: { product_code: 'W-1', preferred_price: 120, preferred_profit: 40, price_war_guard: { undercuts: 2, cooldown_minutes: 30 } },
      headers: json,
    });
    expect(guarded.status).toBe(201);
    expect(guarded.body).toMatchObject({ price_war_guard: { undercuts: 2, cooldown_minutes: 30 } });
    await api.settle();
    const changes = async () => (await decisionsOf(carolId)).map((change) => change.new_price);
    // Undercut 1: the repricer undercuts A (99 -> 98).
    expect(await changes()).toEqual([98]);

    // Act: A undercuts back (99 -> 97, under the own 100: undercut 2); the repricer's 96 would be the third
    await api.importRecords(carol[0], [offerRecord('W1-a', 'W-1', { seller_id: 'seller-wa', offer_price: 97 })]);
    await api.settle();
    const deadline = Date.now() + 20_000;
    while (warReceiver.received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));

    // Assert: nothing decided, the hold visible, the war announced
    expect(await changes()).toEqual([98]);
    const id = guarded.body.id;
    const preview = await api.request<{ offers: { would_decide: number | null }[]; holds: Hold[] }>('GET', `/v1/repricers/${id}/preview`, { auth: carol });
    const listed = await api.request<{ holds: Hold[] }>('GET', `/v1/repricers/${id}/price-changes`, { auth: carol });
    expect(preview.body.offers).toEqual([expect.objectContaining({ would_decide: null })]);
    expect(preview.body.holds).toEqual([
      expect.objectContaining({ offer_id: 'W1-own', reason: 'price_war_hold', rival_offer_id: 'W1-a', rival_seller_id: 'seller-wa' }),
    ]);
    const hold = preview.body.holds[0]!;
    expect(Date.parse(hold.until) - Date.parse(hold.since)).toBe(30 * 60_000);
    expect(listed.body.holds).toEqual(preview.body.holds);
    const events = warReceiver.received.map((request) => JSON.parse(request.body) as Received);
    expect(events).toEqual([
      {
        event_id: `PRICE_WAR_DETECTED-${id}-W1-own-${hold.since}`,
        event_type: 'PRICE_WAR_DETECTED',
        event_timestamp: hold.since,
        event_data: {
          repricer_id: id,
          product_code: 'W-1',
          connector: 'amazon',
          offer_id: 'W1-own',
          rival_offer_id: 'W1-a',
          rival_seller_id: 'seller-wa',
          undercuts: 3,
          reason: 'price_war_hold',
          detected_at: hold.since,
          hold_until: hold.until,
        },
      },
    ]);

    // Act again: A keeps falling during the cool-down
    await api.importRecords(carol[0], [offerRecord('W1-a', 'W-1', { seller_id: 'seller-wa', offer_price: 95 })]);
    await api.settle();
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Assert: still held, and the war is not announced again
    expect(await changes()).toEqual([98]);
    expect(warReceiver.received).toHaveLength(1);
  }, 60_000);

  it('is off by default: a repricer without a guard has no holds', async () => {
    await tellTheStory();
    const id = repricers['R-1']!.id;
    const preview = await api.request<{ holds: unknown[] }>('GET', `/v1/repricers/${id}/preview`, { auth: alice });
    const listed = await api.request<{ holds: unknown[] }>('GET', `/v1/repricers/${id}/price-changes`, { auth: alice });
    expect([preview.body.holds, listed.body.holds]).toEqual([[], []]);
  });
});
