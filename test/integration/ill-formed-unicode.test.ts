/**
 * Text that is not well-formed Unicode, over HTTP: a JSON body with an unpaired surrogate
 * (`"\ud800"`), the same with an Idempotency-Key, and percent-encoded bytes that are not UTF-8
 * (`%ED%A0%80`, a surrogate's would-be encoding) in a query or a path. Each is a 4xx problem,
 * never a 500, and nothing is written.
 */
import { connectorRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { tableScanner, type TableScanner } from '../support/table-snapshot.js';

let api: TestApi;
let scanner: TableScanner;
const client: [string, string] = ['unicode-uma', 'unicode-uma-password'];
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const createWith = (productCode: string) => `{"product_code":"${productCode}","preferred_price":10,"preferred_profit":1}`;

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(client[0], { password: client[1] });
  await api.importRecords(client[0], [connectorRecord('amazon'), productRecord('U-1')]);
  scanner = tableScanner(api.tableName);
}, 120_000);

afterAll(async () => {
  scanner?.close();
  await api?.close();
});

describe('ill-formed Unicode over HTTP', () => {
  it.each([
    ['a lone high surrogate', '\\ud800'],
    ['a lone low surrogate', 'A-\\udfff'],
    ['surrogates in the wrong order', '\\udc00\\ud800'],
  ])('answers a product code with %s with a 400 naming the field, and writes nothing', async (_case, escaped) => {
    // Arrange
    const before = await scanner.scan();

    // Act
    const plain = await api.request('POST', '/v1/repricers/', { auth: client, headers: JSON_HEADERS, body: createWith(escaped) });
    const idempotent = await api.request('POST', '/v1/repricers/', {
      auth: client,
      headers: { ...JSON_HEADERS, 'Idempotency-Key': 'unicode-1' },
      body: createWith(escaped),
    });

    // Assert
    for (const response of [plain, idempotent]) {
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ errors: [{ field: 'product_code', message: expect.stringContaining('well-formed') }] });
    }
    const after = await scanner.scan();
    expect([...after.keys()].filter((key) => !key.startsWith('CLIENT#') && !key.startsWith('COUNTER#'))).toEqual(
      [...before.keys()].filter((key) => !key.startsWith('CLIENT#') && !key.startsWith('COUNTER#')),
    );
  });

  it('frees the Idempotency-Key of a refused request for the corrected one', async () => {
    // Act
    const refused = await api.request('POST', '/v1/repricers/', {
      auth: client,
      headers: { ...JSON_HEADERS, 'Idempotency-Key': 'unicode-2' },
      body: createWith('\\ud800'),
    });
    const corrected = await api.request('POST', '/v1/repricers/', {
      auth: client,
      headers: { ...JSON_HEADERS, 'Idempotency-Key': 'unicode-2' },
      body: createWith('U-1'),
    });

    // Assert
    expect([refused.status, corrected.status]).toEqual([400, 201]);
  });

  it.each([
    ['a query value', '/v1/offers?competitiveness=%ED%A0%80', [200, 400]],
    ['a query name', '/v1/offers?%ED%A0%80=1', [400]],
    ['a product code filter', '/v1/repricers?product_code=%ED%A0%80', [200, 400]],
    ['a product code in the path', '/v1/products/%ED%A0%80', [404]],
    ['an id in the path', '/v1/repricers/%ED%A0%80', [404]],
  ])('answers invalid UTF-8 in %s without a 5xx', async (_case, path, statuses) => {
    // Act
    const response = await api.request('GET', path, { auth: client });

    // Assert
    expect(statuses).toContain(response.status);
  });
});
