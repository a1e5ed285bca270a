/**
 * Simultaneous creates through the local HTTP server against DynamoDB Local: the slot guard
 * lets exactly one repricer per (product, connector) through, and the id counter (one for all
 * clients) never hands out an id twice.
 *
 * The 50 products belong to 10 clients: a client's repricer writes also move its list views'
 * rank directories, which serialise that client's writes (optimistic retries), so a burst of
 * 50 from one client measures DynamoDB Local's transaction speed more than the counter.
 */
import { connectorRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type ApiResponse, type TestApi } from '../support/local-api.js';

let api: TestApi;
const client: [string, string] = ['racer', 'racer-password-1'];
const CLIENTS = Array.from({ length: 10 }, (_, i) => [`racer-${i}`, `racer-${i}-password`] as [string, string]);
const PRODUCTS = Array.from({ length: 50 }, (_, i) => ({ code: `RACE-${String(i).padStart(2, '0')}`, owner: CLIENTS[i % CLIENTS.length]! }));

type Created = { id: number };
type Conflict = { status: number; existing_id: number; detail: string };

const create = (productCode: string, auth = client) =>
  api.request<Created | Conflict>('POST', '/v1/repricers/', { auth, body: { product_code: productCode, preferred_price: 100, preferred_profit: 20 } });

const statusesOf = (responses: ApiResponse<unknown>[]) =>
  responses.reduce<Record<number, number>>((counts, r) => ({ ...counts, [r.status]: (counts[r.status] ?? 0) + 1 }), {});

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(client[0], { password: client[1] });
  await api.importRecords(client[0], [connectorRecord('amazon'), productRecord('CONTESTED')]);
  for (const [username, password] of CLIENTS) {
    await api.createClient(username, { password });
    await api.importRecords(username, PRODUCTS.filter((p) => p.owner[0] === username).map((p) => productRecord(p.code)));
  }
}, 120_000);

afterAll(async () => api?.close());

describe('simultaneous creates', () => {
  it('lets exactly one of 20 creates for one product win; the 19 others get a 409 naming its id', async () => {
    // Act
    const responses = await Promise.all(Array.from({ length: 20 }, () => create('CONTESTED')));

    // Assert
    expect(statusesOf(responses)).toEqual({ 201: 1, 409: 19 });
    const winner = responses.find((r) => r.status === 201)!.body as Created;
    for (const loser of responses.filter((r) => r.status === 409)) {
      expect(loser.headers['content-type']).toBe('application/problem+json');
      expect((loser.body as Conflict).existing_id).toBe(winner.id);
      expect((loser.body as Conflict).detail).toContain(String(winner.id));
    }
    const listed = await api.request<{ meta: { total: number } }>('GET', '/v1/repricers?product_code=CONTESTED', { auth: client });
    expect(listed.body.meta.total).toBe(1);
  }, 60_000);

  it('gives 50 simultaneous creates for 50 products 50 distinct ids', async () => {
    // Act
    const responses = await Promise.all(PRODUCTS.map(({ code, owner }) => create(code, owner)));

    // Assert
    expect(statusesOf(responses)).toEqual({ 201: 50 });
    const ids = responses.map((r) => (r.body as Created).id);
    expect(new Set(ids).size).toBe(50);
    for (const [i, response] of responses.entries()) expect(response.body).toMatchObject({ product: { code: PRODUCTS[i]!.code } });
    for (const owner of CLIENTS) {
      const listed = await api.request<{ meta: { total: number } }>('GET', '/v1/repricers', { auth: owner });
      expect(listed.body.meta.total).toBe(5);
    }
  }, 120_000);
});
