/**
 * Simultaneous writes through the local HTTP server against DynamoDB Local, all by one client:
 * the slot guard lets exactly one repricer per (product, connector) through, the id counter
 * never hands out an id twice, a client's concurrent creates all land and list at once (they
 * count into the same rank nodes with ADDs, so they never wait for one another's version), and
 * of concurrent PATCHes and DELETEs conditioned on one ETag exactly one wins. No response is a 5xx.
 *
 * The authorizer's decision is cached as API Gateway caches it, so a burst measures the writes,
 * not fifty scrypt derivations on the test machine's cores.
 */
import { connectorRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type ApiResponse, type TestApi } from '../support/local-api.js';
import { bySize } from '../support/profile.js';

let api: TestApi;
const client: [string, string] = ['racer', 'racer-password-1'];
// Races need several writers, not many: on a machine busy with the rest of the suite, 20 writers
// contending for one client's items can exhaust the retries (a 503, as designed) before they
// see each other's writes. `npm run test:full` runs the original sizes.
const CONTENDERS = bySize(8, 20);
const BURST = bySize(20, 50);
const PRODUCTS = Array.from({ length: BURST }, (_, i) => `RACE-${String(i).padStart(2, '0')}`);

type Repricer = { id: number; enabled: boolean; preferred_price: number; product: { code: string } };
type Conflict = { status: number; existing_id: number; detail: string };
type Page = { meta: { total: number }; repricers: Repricer[] };

const create = (productCode: string) =>
  api.request<Repricer | Conflict>('POST', '/v1/repricers/', { auth: client, body: { product_code: productCode, preferred_price: 100, preferred_profit: 20 } });
const patch = (id: number, body: unknown, headers: Record<string, string> = {}) =>
  api.request<Repricer>('PATCH', `/v1/repricers/${id}`, { auth: client, body, headers });
const remove = (id: number, headers: Record<string, string> = {}) => api.request('DELETE', `/v1/repricers/${id}`, { auth: client, headers });
const list = (query = '') => api.request<Page>('GET', `/v1/repricers${query}`, { auth: client });

const statusesOf = (responses: ApiResponse<unknown>[]) =>
  responses.reduce<Record<number, number>>((counts, r) => ({ ...counts, [r.status]: (counts[r.status] ?? 0) + 1 }), {});
const expectNo5xx = (responses: ApiResponse<unknown>[]) => expect(responses.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);

/** A fresh repricer for one of the spare products, and its ETag. */
let spare = 0;
const freshRepricer = async (): Promise<{ id: number; etag: string }> => {
  const response = await create(`SPARE-${spare++}`);
  expect(response.status).toBe(201);
  return { id: (response.body as Repricer).id, etag: response.headers.etag! };
};

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(client[0], { password: client[1] });
  await api.importRecords(client[0], [
    connectorRecord('amazon'),
    productRecord('CONTESTED'),
    ...PRODUCTS.map((code) => productRecord(code)),
    ...Array.from({ length: 20 }, (_, i) => productRecord(`SPARE-${i}`)),
  ]);
  // The first request fills the authorizer cache.
  expect((await list()).status).toBe(200);
}, 120_000);

afterAll(async () => api?.close());

describe('simultaneous creates', () => {
  it(`lets exactly one of ${CONTENDERS} creates for one product win; the ${CONTENDERS - 1} others get a 409 naming its id`, async () => {
    // Act
    const responses = await Promise.all(Array.from({ length: CONTENDERS }, () => create('CONTESTED')));

    // Assert
    expectNo5xx(responses);
    expect(statusesOf(responses)).toEqual({ 201: 1, 409: CONTENDERS - 1 });
    const winner = responses.find((r) => r.status === 201)!.body as Repricer;
    for (const loser of responses.filter((r) => r.status === 409)) {
      expect(loser.headers['content-type']).toBe('application/problem+json');
      expect((loser.body as Conflict).existing_id).toBe(winner.id);
      expect((loser.body as Conflict).detail).toContain(String(winner.id));
    }
    const listed = await list('?product_code=CONTESTED');
    expect(listed.body.meta.total).toBe(1);
    expect((await list()).body.repricers.filter((r) => r.product.code === 'CONTESTED').map((r) => r.id)).toEqual([winner.id]);
  }, 60_000);

  it(`creates all of one client's ${BURST} simultaneous repricers for ${BURST} products, with distinct ids, listed at once`, async () => {
    // Prepare
    const before = (await list()).body.meta.total;

    // Act
    const responses = await Promise.all(PRODUCTS.map((code) => create(code)));

    // Assert
    expectNo5xx(responses);
    expect(statusesOf(responses)).toEqual({ 201: BURST });
    const ids = responses.map((r) => (r.body as Repricer).id);
    expect(new Set(ids).size).toBe(BURST);
    for (const [i, response] of responses.entries()) expect(response.body).toMatchObject({ product: { code: PRODUCTS[i] } });
    const listed = await list('?_limit=100');
    expect(listed.body.meta.total).toBe(before + BURST);
    expect(listed.body.repricers.map((r) => r.id)).toEqual(expect.arrayContaining(ids));
    expect((await list('?enabled=true&_sort=created_at:DESC&_limit=100')).body.meta.total).toBe(before + BURST);
  }, 120_000);
});

describe('simultaneous changes of one repricer', () => {
  it('lets one of 10 PATCHes with the same If-Match win; the others get 412', async () => {
    // Prepare
    const { id, etag } = await freshRepricer();

    // Act
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => patch(id, { preferred_price: 100 + i }, { 'If-Match': etag })));

    // Assert
    expectNo5xx(responses);
    expect(statusesOf(responses)).toEqual({ 200: 1, 412: 9 });
    const winner = responses.find((r) => r.status === 200)!;
    expect(winner.headers.etag).toBe('"v2"');
    const current = await api.request<Repricer>('GET', `/v1/repricers/${id}`, { auth: client });
    expect(current.body.preferred_price).toBe(winner.body.preferred_price);
    expect(current.headers.etag).toBe('"v2"');
  }, 60_000);

  it('lets one of a PATCH and DELETEs with the same If-Match win; the others get 412, or 404 once the repricer is gone', async () => {
    // Prepare
    const { id, etag } = await freshRepricer();

    // Act
    const responses = await Promise.all([
      patch(id, { enabled: false }, { 'If-Match': etag }),
      remove(id, { 'If-Match': etag }),
      patch(id, { preferred_price: 90 }, { 'If-Match': etag }),
      remove(id, { 'If-Match': etag }),
    ]);

    // Assert
    expectNo5xx(responses);
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((status) => status === 200 || status === 204)).toHaveLength(1);
    expect(statuses.every((status) => [200, 204, 404, 412].includes(status))).toBe(true);
    const deleted = statuses.includes(204);
    const current = await api.request<Repricer>('GET', `/v1/repricers/${id}`, { auth: client });
    expect(current.status).toBe(deleted ? 404 : 200);
    if (!deleted) expect(statuses.filter((status) => status === 412)).toHaveLength(3);
    const listed = (await list('?_limit=100')).body.repricers.map((r) => r.id);
    expect(listed.includes(id)).toBe(!deleted);
  }, 60_000);

  it('lets one of 10 DELETEs without If-Match delete; the others get 404, and the repricer leaves the list', async () => {
    // Prepare
    const { id } = await freshRepricer();
    const before = (await list()).body.meta.total;

    // Act
    const responses = await Promise.all(Array.from({ length: 10 }, () => remove(id)));

    // Assert
    expectNo5xx(responses);
    expect(statusesOf(responses)).toEqual({ 204: 1, 404: 9 });
    expect((await list()).body.meta.total).toBe(before - 1);
  }, 60_000);

  it.each([
    ['without If-Match', false],
    ['with If-Match', true],
  ])(
    'ends four DELETEs racing four PATCHes %s in 2xx, 404, 409 or 412, never a 5xx, five times over',
    async (_case, withEtag) => {
      for (let round = 0; round < 5; round++) {
        // Prepare
        const { id, etag } = await freshRepricer();
        const before = (await list()).body.meta.total;
        const headers: Record<string, string> = withEtag ? { 'If-Match': etag } : {};

        // Act
        const responses = await Promise.all(
          Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? remove(id, headers) : patch(id, { preferred_price: 90 + i }, headers))),
        );

        // Assert: one DELETE at most removed it, and the list agrees with what the answers say
        expectNo5xx(responses);
        expect(responses.map((r) => r.status).filter((status) => ![200, 204, 404, 409, 412].includes(status))).toEqual([]);
        const deletes = responses.filter((r, i) => i % 2 === 0 && r.status === 204);
        expect(deletes.length).toBeLessThanOrEqual(1);
        if (!withEtag) expect(deletes).toHaveLength(1);
        const current = await api.request<Repricer>('GET', `/v1/repricers/${id}`, { auth: client });
        expect(current.status).toBe(deletes.length === 1 ? 404 : 200);
        expect((await list()).body.meta.total).toBe(before - deletes.length);
        await api.request('DELETE', `/v1/repricers/${id}`, { auth: client });
      }
    },
    120_000,
  );
});
