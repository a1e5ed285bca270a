/**
 * Mass assignment: a client cannot set what the server assigns or computes. Each such field in
 * a create or update body is a 400 naming it, and the table is left as it was. `min_profit` is
 * an input by design (it feeds `min_price`), so it is accepted and `min_price` still computed.
 */
import { connectorRecord, fees, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { scanTable } from '../support/table-snapshot.js';

let api: TestApi;
const client: [string, string] = ['assigner', 'assigner-password-1'];
const valid = { product_code: 'P-MASS', preferred_price: 100, preferred_profit: 20 };
let repricerId: number;

type Problem = { status: number; errors?: { field: string }[] };

/** Fields the server assigns or computes, with a value a client might try. */
const SERVER_FIELDS: [string, unknown][] = [
  ['id', 1],
  ['uid', '00000000-0000-4000-8000-000000000000'],
  ['min_price', 0.01],
  ['fixed_fulfilment_fee', 0],
  ['connector_type', { uid: 'amazon', name: 'Amazon' }],
  ['product', { code: 'P-MASS', soh: 1_000 }],
  ['created_at', '2000-01-01T00:00:00.000Z'],
  ['updated_at', '2000-01-01T00:00:00.000Z'],
  ['version', 1],
  ['client_id', 'someone-else'],
  ['seller_id', 'someone-else'],
  ['pk', 'T#someone-else#R#1'],
];

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(client[0], { password: client[1] });
  await api.importRecords(client[0], [connectorRecord('amazon'), productRecord('P-MASS', { fee_estimates: { amazon: fees(5, 15) } })]);
  const created = await api.request<{ id: number }>('POST', '/v1/repricers/', { auth: client, body: { ...valid, product_code: 'P-MASS' } });
  repricerId = created.body.id;
}, 120_000);

afterAll(async () => api?.close());

describe('mass assignment', () => {
  it.each(SERVER_FIELDS)('refuses %s in a create body with a 400 naming it, writing nothing', async (field, value) => {
    // Arrange
    const before = await scanTable(api.tableName);

    // Act
    const response = await api.request<Problem>('POST', '/v1/repricers/', { auth: client, body: { ...valid, [field]: value } });

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((e) => e.field).join(', ')).toContain(field);
    expect(await scanTable(api.tableName)).toEqual(before);
  });

  it.each([...SERVER_FIELDS, ['product_code', 'OTHER'], ['connector', 'ebay']] as [string, unknown][])(
    'refuses %s in an update body with a 400 naming it, writing nothing',
    async (field, value) => {
      // Arrange
      const before = await scanTable(api.tableName);

      // Act
      const response = await api.request<Problem>('PATCH', `/v1/repricers/${repricerId}`, { auth: client, body: { enabled: false, [field]: value } });

      // Assert
      expect(response.status).toBe(400);
      expect(response.body.errors?.map((e) => e.field).join(', ')).toContain(field);
      expect(await scanTable(api.tableName)).toEqual(before);
    },
  );

  it('accepts min_profit, an input, and still computes min_price', async () => {
    // Act
    const response = await api.request<{ min_profit: number; min_price: number }>('PATCH', `/v1/repricers/${repricerId}`, {
      auth: client,
      body: { min_profit: 5 },
    });

    // Assert: min_price = 100 - (20 - 5) / 0.85 = 82.35..., rounded up to the cent.
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ min_profit: 5, min_price: 82.36 });
  });
});
