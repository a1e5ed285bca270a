import { connectorRecord, fees, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';

/** POST /v1/repricers/ through the local HTTP server, the authorizer and DynamoDB Local. */
let api: TestApi;
const alice: [string, string] = ['alice', 'alice-password-1'];
const bob: [string, string] = ['bob', 'bob-password-1'];

type Problem = { type: string; title: string; status: number; detail: string; errors?: { field: string; message: string }[]; existing_id?: number };

const create = (body: unknown, auth = alice, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  api.request('POST', '/v1/repricers/', { auth, body: typeof body === 'string' ? body : JSON.stringify(body), headers });

const valid = { product_code: 'P-ONE', preferred_price: 100, preferred_profit: 20, buybox_approach: 'cheapest', repricer_approach: 'fixed', enabled: true };

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(alice[0], { password: alice[1], sellerId: 'seller-a', connector: 'amazon' });
  await api.createClient(bob[0], { password: bob[1], sellerId: 'seller-b' });
  await api.importRecords(alice[0], [
    connectorRecord('amazon'),
    connectorRecord('ebay', { website: null }),
    productRecord('P-ONE', { fee_estimates: { amazon: fees(5, 15, 7) }, soh: 3 }),
    productRecord('P-LEAD', { fee_estimates: { amazon: fees(5, 15, 7) }, soh: 0 }),
    productRecord('P-TWO', { fee_estimates: { amazon: fees(5, 15), ebay: fees(4, 10) } }),
    productRecord('P-NONE', { fee_estimates: null }),
    productRecord('P-CONFLICT'),
    productRecord('P-COST', { fee_estimates: { amazon: fees(5, 15, 7) }, soh: 3 }),
    productRecord('P-COST-FREE', { fee_estimates: null }),
    productRecord('P-COST-SWITCH', { fee_estimates: null }),
  ]);
}, 120_000);

afterAll(async () => api?.close());

describe('POST /v1/repricers/', () => {
  it('creates a repricer: 201, Location, computed fields, connector and product nested in full', async () => {
    const response = await create(valid);
    const body = response.body as Record<string, unknown> & { id: number; connector_type: Record<string, unknown>; product: Record<string, unknown> };

    expect(response.status).toBe(201);
    expect(response.headers.location).toBe(`/v1/repricers/${body.id}`);
    // soh > 0 uses the instock fees: F = 5, r = 0.15; C = 100 - 15 - 5 - 20 = 60;
    // min_price = (60 + 5 + 0) / 0.85 = 76.4705... rounded up to 76.48.
    expect(body).toMatchObject({
      buybox_approach: 'cheapest',
      repricer_approach: 'fixed',
      enabled: true,
      preferred_price: 100,
      preferred_profit: 20,
      min_price: 76.48,
      min_profit: 0,
      fixed_fulfilment_fee: 5,
    });
    expect(Number.isInteger(body.id) && body.id > 0).toBe(true);
    expect(body.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(body.updated_at).toBe(body.created_at);
    expect(body.connector_type).toMatchObject({ uid: 'amazon', name: 'AMAZON', logo: 'https://logos.example/amazon.png' });
    expect(Object.keys(body.connector_type).sort()).toEqual(['created_at', 'id', 'logo', 'name', 'uid', 'updated_at', 'website']);
    expect(body.product).toMatchObject({ code: 'P-ONE', soh: 3, fee_estimates: { amazon: { instock: { fulfilment: 5 } } } });
  });

  it('prices a product without stock with its lead-time fees, and applies min_profit', async () => {
    const response = await create({ product_code: 'P-LEAD', preferred_price: 50, preferred_profit: 10, min_profit: 2.5 });

    // leadtime: F = 7, r = 0.15; min_price = 50 - (10 - 2.5) / 0.85 = 41.1764... -> 41.18
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ min_price: 41.18, min_profit: 2.5, fixed_fulfilment_fee: 7, enabled: true });
  });

  it('answers a second repricer for the same product and connector with 409 naming the first', async () => {
    const first = await create({ ...valid, product_code: 'P-CONFLICT' });
    const second = await create({ ...valid, product_code: 'P-CONFLICT', preferred_price: 80 });
    const firstId = (first.body as { id: number }).id;

    expect(first.status).toBe(201);
    expect(second.status).toBe(409);
    expect(second.body as Problem).toMatchObject({ status: 409, existing_id: firstId });
    expect((second.body as Problem).detail).toContain(String(firstId));
  });

  it('needs a connector for a product sold on several, and uses the named one', async () => {
    const ambiguous = await create({ ...valid, product_code: 'P-TWO' });
    const chosen = await create({ ...valid, product_code: 'P-TWO', connector: 'ebay' });

    expect(ambiguous.status).toBe(400);
    expect((ambiguous.body as Problem).errors?.[0]).toMatchObject({ field: 'connector' });
    expect((ambiguous.body as Problem).errors?.[0]?.message).toContain('amazon, ebay');
    expect(chosen.status).toBe(201);
    expect(chosen.body).toMatchObject({ connector_type: { uid: 'ebay', website: null }, fixed_fulfilment_fee: 4 });
  });

  it('uses the client default connector for a product without fee estimates', async () => {
    const response = await create({ ...valid, product_code: 'P-NONE' });

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ connector_type: { uid: 'amazon' }, fixed_fulfilment_fee: 0, min_price: 80 });
  });

  it('answers another client product code exactly like an unknown one (404)', async () => {
    const foreign = await create(valid, bob);
    const unknown = await create({ ...valid, product_code: 'NOPE' }, bob);

    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect((foreign.body as Problem).detail.replace('P-ONE', 'X')).toBe((unknown.body as Problem).detail.replace('NOPE', 'X'));
  });

  it.each([
    ['a missing product_code', { ...valid, product_code: undefined }, 'product_code'],
    ['a price given as a string', { ...valid, preferred_price: '100' }, 'preferred_price'],
    ['a zero price', { ...valid, preferred_price: 0 }, 'preferred_price'],
    ['three decimals', { ...valid, preferred_profit: 1.234 }, 'preferred_profit'],
    ['a huge price', { ...valid, preferred_price: 1e12 }, 'preferred_price'],
    ['an unknown approach', { ...valid, buybox_approach: 'richest' }, 'buybox_approach'],
    ['enabled as a string', { ...valid, enabled: 'true' }, 'enabled'],
    ['a server-set field (id)', { ...valid, id: 5 }, 'id'],
    ['a computed field (min_price)', { ...valid, min_price: 1 }, 'min_price'],
    ['an over-long product code', { ...valid, product_code: 'x'.repeat(65) }, 'product_code'],
  ])('refuses %s with a 400 naming the field', async (_case, body, field) => {
    const response = await create(body);

    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect((response.body as Problem).errors?.map((e) => e.field).join(',')).toContain(field);
  });

  it('answers malformed JSON with 400, a non-JSON media type with 415 and a body over 16 KiB with 413', async () => {
    const malformed = await create('{"product_code": ');
    const text = await create(JSON.stringify(valid), alice, { 'content-type': 'text/plain' });
    const huge = await create({ ...valid, padding: 'x'.repeat(17 * 1024) });

    expect([malformed.status, text.status, huge.status]).toEqual([400, 415, 413]);
    for (const r of [malformed, text, huge]) expect(r.headers['content-type']).toBe('application/problem+json');
  });

  it('answers a profit the price cannot carry with 422', async () => {
    const response = await create({ ...valid, preferred_price: 10, preferred_profit: 20 });

    expect(response.status).toBe(422);
    expect((response.body as Problem).detail).toMatch(/profit/);
  });

  it('requires credentials', async () => {
    const response = await api.request('POST', '/v1/repricers/', { body: JSON.stringify(valid), headers: { 'content-type': 'application/json' } });

    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Basic realm="repricer", charset="UTF-8"');
  });
});

describe('POST /v1/repricers/ with repricer_approach cost_based', () => {
  const costBased = { product_code: 'P-COST', repricer_approach: 'cost_based', unit_cost: 50, preferred_profit: 20, min_profit: 5 };
  const getRepricer = async (id: number) => (await api.request('GET', `/v1/repricers/${id}`, { auth: alice })).body as Record<string, unknown>;

  it('computes floor and ceiling from the unit cost and the fees of the stock mode, and follows the product when it changes', async () => {
    // Act
    const created = await create(costBased);
    const id = (created.body as { id: number }).id;

    // Assert: in stock, F 5, r 0.15: (50 + 5 + 5) / 0.85 = 70.588.. -> 70.59; (50 + 5 + 20) / 0.85 = 88.235.. -> 88.24
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ repricer_approach: 'cost_based', unit_cost: 50, min_price: 70.59, preferred_price: 88.24, fixed_fulfilment_fee: 5 });

    // Act: sold out (soh crosses 0): the lead-time fees, F 7
    await api.importRecords(alice[0], [productRecord('P-COST', { fee_estimates: { amazon: fees(5, 15, 7) }, soh: 0 })]);
    await api.settle();

    // Assert: (50 + 7 + 5) / 0.85 = 72.941.. -> 72.95; (50 + 7 + 20) / 0.85 = 90.588.. -> 90.59
    expect(await getRepricer(id)).toMatchObject({ min_price: 72.95, preferred_price: 90.59, fixed_fulfilment_fee: 7, product: { soh: 0 } });

    // Act: the fees change (commission 20 %)
    await api.importRecords(alice[0], [productRecord('P-COST', { fee_estimates: { amazon: fees(5, 20, 7) }, soh: 0 })]);
    await api.settle();

    // Assert: (50 + 7 + 5) / 0.8 = 77.5; (50 + 7 + 20) / 0.8 = 96.25
    expect(await getRepricer(id)).toMatchObject({ min_price: 77.5, preferred_price: 96.25, unit_cost: 50 });
  });

  it('leaves a fixed repricer with no unit cost', async () => {
    const response = await create({ ...valid, product_code: 'P-COST-FREE', unit_cost: null });

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ repricer_approach: 'fixed', unit_cost: null, price_war_guard: null, preferred_price: 100 });
  });

  it.each([
    ['a preferred_price (it is computed)', { ...costBased, preferred_price: 90 }, 'preferred_price'],
    ['no unit_cost', { ...costBased, unit_cost: undefined }, 'unit_cost'],
    ['a unit_cost as text', { ...costBased, unit_cost: '50' }, 'unit_cost'],
    ['a unit_cost on a fixed repricer', { ...valid, unit_cost: 50 }, 'unit_cost'],
    ['a unit_cost that leaves no positive floor', { ...costBased, product_code: 'P-COST-FREE', unit_cost: 0, min_profit: 0, preferred_profit: 0 }, 'unit_cost'],
    ['a floor above the ceiling', { ...costBased, product_code: 'P-COST-FREE', min_profit: 30 }, 'min_profit'],
    ['a price-war guard of 0 undercuts', { ...valid, price_war_guard: { undercuts: 0, cooldown_minutes: 30 } }, 'price_war_guard.undercuts'],
  ])('refuses %s with a 400 naming the field', async (_case, body, field) => {
    const response = await create(body);

    expect(response.status).toBe(400);
    expect((response.body as Problem).errors?.map((e) => e.field)).toContain(field);
  });

  it('switches approach by PATCH: fixed keeps the last ceiling, a missing unit cost is a 400', async () => {
    const created = await create({ ...costBased, product_code: 'P-COST-SWITCH', unit_cost: 10, min_profit: 0 });
    const id = (created.body as { id: number }).id;
    const patch = (body: unknown) =>
      api.request('PATCH', `/v1/repricers/${id}`, { auth: alice, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

    const priced = await patch({ preferred_price: 40 });
    const fixed = await patch({ repricer_approach: 'fixed' });
    const back = await patch({ repricer_approach: 'cost_based' });

    // No fees: the ceiling is 10 + 20 = 30.
    expect(created.body).toMatchObject({ preferred_price: 30, min_price: 10 });
    expect([priced.status, (priced.body as Problem).errors?.[0]?.field]).toEqual([400, 'preferred_price']);
    expect(fixed.body).toMatchObject({ repricer_approach: 'fixed', preferred_price: 30, min_price: 10, unit_cost: null });
    expect([back.status, (back.body as Problem).errors?.[0]?.field]).toEqual([400, 'unit_cost']);
  });
});
