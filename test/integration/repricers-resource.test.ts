import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type ApiResponse, type TestApi } from '../support/local-api.js';

/**
 * The repricer resource (list, get, patch, delete) and the offer and product reads, through the
 * local HTTP server, the authorizer and DynamoDB Local.
 */
let api: TestApi;
const alice: [string, string] = ['alice', 'alice-password-1'];
const bob: [string, string] = ['bob', 'bob-password-1'];

type Repricer = {
  id: number;
  enabled: boolean;
  preferred_price: number;
  preferred_profit: number;
  min_price: number;
  min_profit: number;
  fixed_fulfilment_fee: number;
  connector_type: { uid: string };
  product: { code: string; soh: number };
  created_at: string;
  updated_at: string;
};
type Page = { meta: { total: number; limit: number; start: number }; repricers: Repricer[] };
type Problem = { status: number; detail: string; errors?: { field: string; message: string }[] };

const json = { 'content-type': 'application/json' };
const create = (body: Record<string, unknown>, auth = alice) => api.request<Repricer>('POST', '/v1/repricers/', { auth, body, headers: json });
const get = (id: number | string, auth = alice) => api.request<Repricer>('GET', `/v1/repricers/${id}`, { auth });
const patch = (id: number | string, body: unknown, headers: Record<string, string> = {}, auth = alice) =>
  api.request<Repricer>('PATCH', `/v1/repricers/${id}`, { auth, body, headers: { ...json, ...headers } });
const remove = (id: number | string, headers: Record<string, string> = {}, auth = alice) =>
  api.request<string>('DELETE', `/v1/repricers/${id}`, { auth, headers });
const list = (query = '', auth = alice) => api.request<Page>('GET', `/v1/repricers${query}`, { auth });
const ids = (response: ApiResponse<Page>) => response.body.repricers.map((r) => r.id);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates a repricer and returns its record; a few milliseconds apart, so timestamps differ. */
const created = async (body: Record<string, unknown>): Promise<Repricer> => {
  const response = await create({ preferred_price: 100, preferred_profit: 20, ...body });
  expect(response.status).toBe(201);
  await sleep(3);
  return response.body;
};

// Alice's repricers, by creation order: r[0] P-A, r[1] P-B/amazon (disabled), r[2] P-B/ebay, r[3] P-C (disabled), r[4] P-D.
let r: Repricer[];

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(alice[0], { password: alice[1], sellerId: 'seller-a', connector: 'amazon' });
  await api.createClient(bob[0], { password: bob[1], sellerId: 'seller-b' });
  await api.importRecords(alice[0], [
    connectorRecord('amazon'),
    connectorRecord('ebay'),
    productRecord('P-A', { fee_estimates: { amazon: fees(5, 15) } }),
    productRecord('P-B', { fee_estimates: { amazon: fees(5, 15), ebay: fees(4, 10) } }),
    productRecord('P-C', { fee_estimates: null }),
    productRecord('P-D'),
    productRecord('P-E'),
    productRecord('A B/1'),
    offerRecord('own-1', 'P-A', { seller_id: 'seller-a' }),
    offerRecord('other-1', 'P-A', { seller_id: 'seller-x' }),
  ]);
  await api.importRecords(bob[0], [productRecord('P-A', { title: 'Bob P-A' }), offerRecord('bob-1', 'P-A', { seller_id: 'seller-b' })]);
  r = [
    await created({ product_code: 'P-A' }),
    await created({ product_code: 'P-B', connector: 'amazon', enabled: false }),
    await created({ product_code: 'P-B', connector: 'ebay', preferred_price: 50 }),
    await created({ product_code: 'P-C', enabled: false, preferred_price: 80 }),
    await created({ product_code: 'P-D' }),
  ];
}, 120_000);

afterAll(async () => api?.close());

describe('GET /v1/repricers', () => {
  it('lists every repricer of the client by id, with exact meta and the records as created', async () => {
    const response = await list();

    expect(response.status).toBe(200);
    expect(response.body.meta).toEqual({ total: 5, limit: 100, start: 0 });
    expect(response.body.repricers).toEqual(r);
  });

  it.each<[string, () => number[], { total: number }]>([
    ['?_limit=2', () => [r[0]!.id, r[1]!.id], { total: 5 }],
    ['?_limit=2&_start=2', () => [r[2]!.id, r[3]!.id], { total: 5 }],
    ['?_start=4', () => [r[4]!.id], { total: 5 }],
    ['?_start=9', () => [], { total: 5 }],
    ['?_sort=id:DESC', () => r.map((x) => x.id).reverse(), { total: 5 }],
    ['?_sort=created_at:desc&_limit=3', () => [r[4]!.id, r[3]!.id, r[2]!.id], { total: 5 }],
    ['?_sort=updated_at', () => r.map((x) => x.id), { total: 5 }],
    ['?enabled=false', () => [r[1]!.id, r[3]!.id], { total: 2 }],
    ['?enabled=true&_sort=created_at:DESC', () => [r[4]!.id, r[2]!.id, r[0]!.id], { total: 3 }],
    ['?product_code=P-B', () => [r[1]!.id, r[2]!.id], { total: 2 }],
    ['?product_code=P-B&enabled=true', () => [r[2]!.id], { total: 1 }],
    ['?product_code=P-E', () => [], { total: 0 }],
    ['?product_code=A%20B%2F1', () => [], { total: 0 }],
  ])('serves %s from the matching view', async (query, expected, meta) => {
    const response = await list(query);

    expect(response.status).toBe(200);
    expect(ids(response)).toEqual(expected());
    expect(response.body.meta.total).toBe(meta.total);
  });

  it('echoes the effective limit and start', async () => {
    expect((await list('?_limit=1&_start=3')).body.meta).toEqual({ total: 5, limit: 1, start: 3 });
  });

  it.each([
    ['an unknown parameter', '?colour=red', 'colour'],
    ['a repeated parameter', '?enabled=true&enabled=false', 'enabled'],
    ['a zero limit', '?_limit=0', '_limit'],
    ['a limit over 100', '?_limit=101', '_limit'],
    ['a negative start', '?_start=-1', '_start'],
    ['an offer sort field', '?_sort=offer_price', '_sort'],
    ['a bad direction', '?_sort=id:UP', '_sort'],
    ['enabled other than true/false', '?enabled=yes', 'enabled'],
    ['an empty product_code', '?product_code=', 'product_code'],
  ])('refuses %s with a 400 naming it', async (_case, query, field) => {
    const response = await list(query);

    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect((response.body as unknown as Problem).errors?.map((e) => e.field)).toContain(field);
  });

  it('shows another client none of them', async () => {
    expect((await list('', bob)).body).toEqual({ meta: { total: 0, limit: 100, start: 0 }, repricers: [] });
    expect((await list('?product_code=P-A', bob)).body.meta.total).toBe(0);
  });
});

describe('GET /v1/repricers/{id}', () => {
  it('answers the record with its ETag', async () => {
    const response = await get(r[2]!.id);

    expect(response.status).toBe(200);
    expect(response.body).toEqual(r[2]);
    expect(response.headers.etag).toBe('"v1"');
  });

  it('answers a missing, malformed or another client id exactly alike (404)', async () => {
    const missing = await get(999_999);
    const responses = [await get(r[0]!.id, bob), await get('abc'), await get('0'), await get('007'), await get('1.5'), await get('99999999999999999999')];

    expect(missing.status).toBe(404);
    for (const response of responses) {
      expect(response.status).toBe(404);
      expect(response.text).toBe(missing.text);
    }
  });
});

describe('PATCH /v1/repricers/{id}', () => {
  it('changes the given fields, recomputes the computed ones, moves updated_at and the ETag', async () => {
    const before = await created({ product_code: 'P-E' });

    const response = await patch(before.id, { preferred_price: 200, min_profit: 5 });

    // P-E: instock fees F = 2.5, r = 0.15; min_price = 200 - (20 - 5) / 0.85 = 182.35294... -> 182.36
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBe('"v2"');
    expect(response.body).toEqual({ ...before, preferred_price: 200, min_profit: 5, min_price: 182.36, updated_at: response.body.updated_at });
    expect(response.body.updated_at > before.updated_at).toBe(true);
    expect((await get(before.id)).body).toEqual(response.body);
    expect((await list(`?product_code=P-E&_sort=updated_at:DESC`)).body.repricers).toEqual([response.body]);
    await remove(before.id);
  });

  it('recomputes from the product as it is now, and nests that product', async () => {
    const before = await created({ product_code: 'A B/1' });
    await api.importRecords(alice[0], [productRecord('A B/1', { soh: 0, fee_estimates: { amazon: fees(5, 15, 9) } })]);

    const response = await patch(before.id, { enabled: false });

    // Lead-time fees now: F = 9, r = 0.15; min_price = 100 - 20 / 0.85 = 76.47.. -> 76.48
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ enabled: false, fixed_fulfilment_fee: 9, min_price: 76.48, product: { code: 'A B/1', soh: 0 } });
    expect(ids(await list('?enabled=false&product_code=A%20B%2F1'))).toEqual([before.id]);
    expect(ids(await list('?enabled=true&product_code=A%20B%2F1'))).toEqual([]);
    await remove(before.id);
  });

  it('honours If-Match: the current ETag or * passes, an old or weak one is 412', async () => {
    const { id } = await created({ product_code: 'P-E' });

    const current = await patch(id, { preferred_profit: 10 }, { 'If-Match': '"v1"' });
    const stale = await patch(id, { preferred_profit: 11 }, { 'If-Match': '"v1"' });
    const weak = await patch(id, { preferred_profit: 11 }, { 'If-Match': 'W/"v2"' });
    const listed = await patch(id, { preferred_profit: 12 }, { 'If-Match': '"v9", "v2"' });
    const any = await patch(id, { preferred_profit: 13 }, { 'If-Match': '*' });

    expect([current.status, stale.status, weak.status, listed.status, any.status]).toEqual([200, 412, 412, 200, 200]);
    expect(stale.headers['content-type']).toBe('application/problem+json');
    expect(any.headers.etag).toBe('"v4"');
    expect((await get(id)).body.preferred_profit).toBe(13);
    await remove(id);
  });

  it('lets exactly one of two concurrent PATCHes naming the same version win', async () => {
    const { id } = await created({ product_code: 'P-E' });

    const responses = await Promise.all([
      patch(id, { preferred_price: 150 }, { 'If-Match': '"v1"' }),
      patch(id, { preferred_price: 160 }, { 'If-Match': '"v1"' }),
    ]);

    expect(responses.map((x) => x.status).sort()).toEqual([200, 412]);
    const winner = responses.find((x) => x.status === 200)!;
    expect((await get(id)).body).toEqual(winner.body);
    expect((await get(id)).headers.etag).toBe('"v2"');
    await remove(id);
  });

  it('applies concurrent unconditional PATCHes one after another, losing none', async () => {
    const { id } = await created({ product_code: 'P-E' });

    const responses = await Promise.all([patch(id, { preferred_price: 150 }), patch(id, { enabled: false }), patch(id, { min_profit: 1 })]);

    expect(responses.map((x) => x.status)).toEqual([200, 200, 200]);
    const after = await get(id);
    expect(after.body).toMatchObject({ preferred_price: 150, enabled: false, min_profit: 1 });
    expect(after.headers.etag).toBe('"v4"');
    expect(ids(await list('?product_code=P-E&enabled=false'))).toEqual([id]);
    await remove(id);
  });

  it.each([
    ['an empty body', {}, '(body)'],
    ['an id', { id: 5 }, 'id'],
    ['a uid', { uid: 'x' }, 'uid'],
    ['a computed field', { min_price: 1 }, 'min_price'],
    ['a timestamp', { updated_at: '2026-01-01T00:00:00.000Z' }, 'updated_at'],
    ['the product code', { product_code: 'P-A' }, 'product_code'],
    ['a price as a string', { preferred_price: '10' }, 'preferred_price'],
    ['three decimals', { preferred_profit: 1.234 }, 'preferred_profit'],
    ['null', { enabled: null }, 'enabled'],
    ['an unknown approach', { buybox_approach: 'richest' }, 'buybox_approach'],
  ])('refuses %s with a 400 naming it', async (_case, body, field) => {
    const response = await patch(r[0]!.id, body);

    expect(response.status).toBe(400);
    expect((response.body as unknown as Problem).errors?.map((e) => e.field).join(',')).toContain(field);
  });

  it('answers a non-JSON body with 415, a profit the price cannot carry with 422, and changes nothing', async () => {
    const text = await api.request('PATCH', `/v1/repricers/${r[0]!.id}`, { auth: alice, body: '{"enabled":false}', headers: { 'content-type': 'text/plain' } });
    const impossible = await patch(r[0]!.id, { min_profit: 50 });

    expect([text.status, impossible.status]).toEqual([415, 422]);
    expect((await get(r[0]!.id)).body).toEqual(r[0]);
  });

  it('answers another client id like a missing one (404)', async () => {
    const foreign = await patch(r[0]!.id, { enabled: false }, {}, bob);
    const missing = await patch(999_999, { enabled: false });

    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    expect((await get(r[0]!.id)).body.enabled).toBe(true);
  });
});

describe('DELETE /v1/repricers/{id}', () => {
  it('answers 204 without a body, then 404; the slot is free and the views are gone', async () => {
    const { id } = await created({ product_code: 'P-E' });

    const response = await remove(id);

    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await get(id)).status).toBe(404);
    expect((await remove(id)).status).toBe(404);
    expect((await list('?product_code=P-E')).body.meta.total).toBe(0);
    expect((await list()).body.meta.total).toBe(5);
    const again = await create({ product_code: 'P-E', preferred_price: 100, preferred_profit: 20 });
    expect(again.status).toBe(201);
    await remove(again.body.id);
  });

  it('honours If-Match, and keeps the repricer when it fails', async () => {
    const { id } = await created({ product_code: 'P-E' });

    const stale = await remove(id, { 'If-Match': '"v7"' });
    const current = await remove(id, { 'If-Match': '"v1"' });

    expect([stale.status, current.status]).toEqual([412, 204]);
  });

  it('answers another client id like a missing one, and deletes nothing', async () => {
    const foreign = await remove(r[0]!.id, {}, bob);
    const malformed = await remove('x1');
    const missing = await remove(999_999);

    expect([foreign.status, malformed.status, missing.status]).toEqual([404, 404, 404]);
    expect(foreign.text).toBe(missing.text);
    expect((await get(r[0]!.id)).status).toBe(200);
  });
});

describe('GET /v1/offers/{id} and GET /v1/products/{code}', () => {
  it('reads one offer of the client, own or another seller on its products', async () => {
    const listed = (await api.request<{ offers: { id: number; offer_id: string }[] }>('GET', '/v1/offers?_include_other_offers=true', { auth: alice })).body
      .offers;

    for (const offer of listed) {
      const response = await api.request('GET', `/v1/offers/${offer.id}`, { auth: alice });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(offer);
    }
    expect(listed.map((o) => o.offer_id).sort()).toEqual(['other-1', 'own-1']);
  });

  it('answers another client offer, a missing and a malformed id alike (404)', async () => {
    const bobOffer = (await api.request<{ offers: { id: number }[] }>('GET', '/v1/offers', { auth: bob })).body.offers[0]!;
    const foreign = await api.request('GET', `/v1/offers/${bobOffer.id}`, { auth: alice });
    const missing = await api.request('GET', '/v1/offers/999999', { auth: alice });
    const malformed = await api.request('GET', '/v1/offers/-3', { auth: alice });

    expect([foreign.status, missing.status, malformed.status]).toEqual([404, 404, 404]);
    expect(foreign.text).toBe(missing.text);
    expect(malformed.text).toBe(missing.text);
  });

  it('reads one product of the client by its (encoded) code', async () => {
    const plain = await api.request<{ code: string; title: string }>('GET', '/v1/products/P-A', { auth: alice });
    const encoded = await api.request<{ code: string }>('GET', '/v1/products/A%20B%2F1', { auth: alice });
    const bobs = await api.request<{ title: string }>('GET', '/v1/products/P-A', { auth: bob });

    expect(plain.status).toBe(200);
    // No connection, nothing learned: no premium to show.
    expect(plain.body).toEqual({ ...r[0]!.product, in_stock_premium: {} });
    expect(encoded.body.code).toBe('A B/1');
    expect(bobs.body.title).toBe('Bob P-A');
  });

  it('answers another client product, a missing and an impossible code alike (404)', async () => {
    const foreign = await api.request('GET', '/v1/products/P-B', { auth: bob });
    const missing = await api.request('GET', '/v1/products/NOPE', { auth: bob });
    const tooLong = await api.request('GET', `/v1/products/${'x'.repeat(65)}`, { auth: bob });
    const undecodable = await api.request('GET', '/v1/products/%E0%A4%A', { auth: bob });

    expect([foreign.status, missing.status, tooLong.status, undecodable.status]).toEqual([404, 404, 404, 404]);
    for (const response of [missing, tooLong, undecodable]) expect(response.text).toBe(foreign.text);
  });
});
