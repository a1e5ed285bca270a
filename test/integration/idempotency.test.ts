/**
 * `Idempotency-Key` on POST /v1/repricers/ through the local HTTP server, with the records in
 * the test's own table on DynamoDB Local.
 */
import { TTL_ATTRIBUTE } from '../../lambdas/config/table-schema.js';
import { idempotencyPartition } from '../../lambdas/data/table/keys.js';
import { IDEMPOTENCY_SCOPE } from '../../lambdas/http/idempotency.js';
import { connectorRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type ApiResponse, type TestApi } from '../support/local-api.js';
import { scanTable } from '../support/table-snapshot.js';
import { step } from '../support/story.js';

let api: TestApi;
const alice: [string, string] = ['idem-alice', 'idem-alice-password'];
const bob: [string, string] = ['idem-bob', 'idem-bob-password'];

type Repricer = { id: number };
type Problem = { type: string; status: number; detail: string; errors?: { field: string }[] };

const create = (auth: [string, string], body: Record<string, unknown>, key?: string) =>
  api.request<Repricer & Problem>('POST', '/v1/repricers/', { auth, body, ...(key === undefined ? {} : { headers: { 'Idempotency-Key': key } }) });
const body = (code: string, price = 100) => ({ product_code: code, preferred_price: price, preferred_profit: 20 });

/** Headers that differ per response by nature. */
const PER_RESPONSE = new Set(['x-amzn-requestid', 'date', 'connection', 'keep-alive']);
const stableHeaders = (response: ApiResponse<unknown>) => Object.fromEntries(Object.entries(response.headers).filter(([name]) => !PER_RESPONSE.has(name)));

const totalOf = async (auth: [string, string], code: string) =>
  (await api.request<{ meta: { total: number } }>('GET', `/v1/repricers?product_code=${code}`, { auth })).body.meta.total;

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(alice[0], { password: alice[1] });
  await api.createClient(bob[0], { password: bob[1] });
  await api.importRecords(alice[0], [connectorRecord('amazon'), ...['I-1', 'I-2', 'I-3', 'I-4', 'I-5'].map((code) => productRecord(code))]);
  await api.importRecords(bob[0], [productRecord('I-1')]);
}, 120_000);

afterAll(async () => api?.close());

describe('Idempotency-Key on POST /v1/repricers/', () => {
  it('honours Idempotency-Key on POST /v1/repricers/ through one sequence of requests', async () => {
    await step('answers a retry with the same key and body with the original 201: same body, id and headers', async () => {
      // Act
      const first = await create(alice, body('I-1'), 'retry-1');
      const retry = await create(alice, body('I-1'), 'retry-1');

      // Assert
      expect(first.status).toBe(201);
      expect(retry.status).toBe(201);
      expect(retry.text).toBe(first.text);
      expect(retry.body.id).toBe(first.body.id);
      expect(stableHeaders(retry)).toEqual(stableHeaders(first));
      expect(retry.headers.location).toBe(`/v1/repricers/${first.body.id}`);
      expect(await totalOf(alice, 'I-1')).toBe(1);
    });
    await step('answers the same key with a different body with a 422 problem', async () => {
      // Act
      const response = await create(alice, body('I-1', 90), 'retry-1');

      // Assert
      expect(response.status).toBe(422);
      expect(response.headers['content-type']).toBe('application/problem+json');
      expect(response.body).toMatchObject({ type: 'urn:repricer:problem:unprocessable', status: 422, detail: expect.stringContaining('Idempotency-Key') });
    });
    await step('without a key, a retry is a second create: 409 naming the first', async () => {
      // Act
      const first = await create(alice, body('I-2'));
      const retry = await create(alice, body('I-2'));

      // Assert
      expect([first.status, retry.status]).toEqual([201, 409]);
    });
    await step("scopes keys per client: another client's request with the same key is its own", async () => {
      // Act
      const bobs = await create(bob, body('I-1'), 'retry-1');

      // Assert
      expect(bobs.status).toBe(201);
      expect(await totalOf(bob, 'I-1')).toBe(1);
    });
    await step('stores only 2xx responses: a failed request leaves the key free for the corrected one', async () => {
      // Act
      const failed = await create(alice, body('NO-SUCH-PRODUCT'), 'fix-and-retry');
      const corrected = await create(alice, body('I-3'), 'fix-and-retry');

      // Assert
      expect(failed.status).toBe(404);
      expect(corrected.status).toBe(201);
    });
    await step('keeps the record in the table under IDEMPOTENCY#, expiring through the TTL attribute after 24 hours', async () => {
      // Act
      const items = [...(await scanTable(api.tableName)).entries()].filter(([key]) => key.startsWith(`${idempotencyPartition(IDEMPOTENCY_SCOPE)}\u0000`));

      // Assert: retry-1 of each client and fix-and-retry.
      expect(items).toHaveLength(3);
      for (const [, text] of items) {
        const item = JSON.parse(text) as Record<string, { S?: string; N?: string }>;
        expect(item.status?.S).toBe('COMPLETED');
        const expiresIn = Number(item[TTL_ATTRIBUTE]?.N) - Date.now() / 1000;
        expect(expiresIn).toBeGreaterThan(24 * 3600 - 120);
        expect(expiresIn).toBeLessThanOrEqual(24 * 3600 + 1);
      }
    });
    await step('creates one repricer for simultaneous requests with one key: the others replay it or are told to retry', async () => {
      // Act
      const responses = await Promise.all(Array.from({ length: 6 }, () => create(alice, body('I-4'), 'burst')));

      // Assert
      const created = responses.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((r) => r.text)).size).toBe(1);
      for (const other of responses.filter((r) => r.status !== 201)) {
        expect(other.status).toBe(409);
        expect(other.body.detail).toMatch(/still being processed/);
      }
      expect(await totalOf(alice, 'I-4')).toBe(1);
    });
    await step('refuses an empty key and a 129-character key with a 400 naming the header', async () => {
      for (const [_case, key] of [
        ['an empty key', ''],
        ['a 129-character key', 'k'.repeat(129)],
      ] as const) {
        // Act
        const response = await create(alice, body('I-5'), key);

        // Assert
        expect(response.status).toBe(400);
        expect(response.body.errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key' })]);
        expect(await totalOf(alice, 'I-5')).toBe(0);
      }
    });
  }, 480_000);

  it.each([1_000, 2_100, 2_200])('answers a body nested %s levels deep with a 400, not a 500 from hashing it', async (depth) => {
    // Act
    const response = await api.request<{ detail: string }>('POST', '/v1/repricers/', {
      auth: alice,
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `deep-${depth}` },
      body: `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
    });

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/nested/);
  });
});
