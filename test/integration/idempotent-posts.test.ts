/**
 * `Idempotency-Key` on every POST a client makes that changes something (docs/api.md,
 * "Idempotency-Key"), through the local HTTP server on DynamoDB Local: a retry with the same key
 * and request answers the first response (status, body, headers) and has no second effect; the
 * same key with another request is a 422. POST /v1/repricers/ has its own file
 * (test/integration/idempotency.test.ts).
 */
import { IDEMPOTENCY_SCOPE } from '../../lambdas/http/idempotency.js';
import { idempotencyPartition } from '../../lambdas/data/table/keys.js';
import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type ApiResponse, type TestApi } from '../support/local-api.js';
import { saveSuggestConnection } from '../support/suggest-connection.js';
import { scanTable } from '../support/table-snapshot.js';

let api: TestApi;
const alice: [string, string] = ['idem-posts-alice', 'idem-posts-alice-password'];
let aliceId: string;

type Problem = { type: string; status: number; detail: string };

const post = <T>(path: string, key: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
  api.request<T & Problem>('POST', path, { auth: alice, ...options, headers: { ...options.headers, 'Idempotency-Key': key } });
const get = async <T>(path: string) => (await api.request<T>('GET', path, { auth: alice })).body;

/** Headers that differ per response by nature. */
const PER_RESPONSE = new Set(['x-amzn-requestid', 'date', 'connection', 'keep-alive']);
const stableHeaders = (response: ApiResponse<unknown>) => Object.fromEntries(Object.entries(response.headers).filter(([name]) => !PER_RESPONSE.has(name)));

/** The retry is the first answer again: status, body byte for byte, headers. */
const expectReplayed = (retry: ApiResponse<unknown>, first: ApiResponse<unknown>) => {
  expect(retry.status).toBe(first.status);
  expect(retry.text).toBe(first.text);
  expect(stableHeaders(retry)).toEqual(stableHeaders(first));
};

const expectReused = (response: ApiResponse<Problem>) => {
  expect(response.status).toBe(422);
  expect(response.body).toMatchObject({ type: 'urn:repricer:problem:unprocessable', detail: expect.stringContaining('Idempotency-Key') });
};

beforeAll(async () => {
  api = await startTestApi();
  aliceId = (await api.createClient(alice[0], { password: alice[1], sellerId: 'seller-a', connector: 'amazon' })).clientId;
  // No live connection to amazon: every decision is a suggestion waiting for its apply.
  await api.importRecords(alice[0], [
    connectorRecord('amazon'),
    connectorRecord('takealot'),
    ...['P-1', 'P-2'].flatMap((code, i) => [
      productRecord(code, { fee_estimates: { amazon: fees(5, 15) } }),
      offerRecord(`${code}-own`, code, { seller_id: 'seller-a', offer_price: 55 + i }),
      offerRecord(`${code}-rival`, code, { seller_id: 'seller-x', offer_price: 58 + i }),
    ]),
  ]);
  await saveSuggestConnection(aliceId, 'idem-posts-takealot-key-0001');
}, 120_000);

afterAll(async () => api?.close());

describe('Idempotency-Key on every mutating POST', () => {
  it('POST /v1/webhooks: a retry answers the first webhook and its secret, makes no second, and the kept answer holds no secret in clear', async () => {
    // Arrange
    const body = { url: 'http://127.0.0.1:9/idem-hook', event_types: ['REPRICER_PRICE_CHANGED'] };

    // Act
    const first = await post<{ id: number; secret: string }>('/v1/webhooks', 'hook-1', { body });
    const retry = await post<{ id: number; secret: string }>('/v1/webhooks', 'hook-1', { body });
    const other = await post<Problem>('/v1/webhooks', 'hook-1', { body: { ...body, url: 'http://127.0.0.1:9/other-hook' } });

    // Assert
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    expectReplayed(retry, first);
    expect(retry.body.secret).toBe(first.body.secret);
    expectReused(other);
    expect((await get<{ webhooks: unknown[] }>('/v1/webhooks')).webhooks).toHaveLength(1);
    const table = [...(await scanTable(api.tableName)).values()].join('\n');
    expect(table).not.toContain(first.body.secret);
    expect(table).not.toContain(first.body.secret.slice('whsec_'.length));
    // Nothing listens there: no delivery should keep the event runtime busy for the other tests.
    expect((await api.request('DELETE', `/v1/webhooks/${first.body.id}`, { auth: alice })).status).toBe(204);
  });

  it('POST /v1/price-changes/{id}/apply: a retry answers the first 200, not a 409; the same key on another price change is a 422', async () => {
    // Arrange: a repricer on each product decides a suggestion for each.
    for (const code of ['P-1', 'P-2']) {
      const created = await api.request('POST', '/v1/repricers/', { auth: alice, body: { product_code: code, preferred_price: 70, preferred_profit: 10 } });
      expect(created.status).toBe(201);
    }
    await api.settle();
    const suggested = (await get<{ price_changes: { id: number; status: string }[] }>('/v1/price-changes?status=suggested')).price_changes;
    expect(suggested).toHaveLength(2);
    const [one, two] = suggested as [{ id: number }, { id: number }, ...unknown[]];

    // Act
    const first = await post<{ status: string }>(`/v1/price-changes/${one.id}/apply`, 'apply-1');
    const retry = await post<{ status: string }>(`/v1/price-changes/${one.id}/apply`, 'apply-1');
    const other = await post<Problem>(`/v1/price-changes/${two.id}/apply`, 'apply-1');
    const withoutKey = await api.request('POST', `/v1/price-changes/${one.id}/apply`, { auth: alice });

    // Assert
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('pending');
    expectReplayed(retry, first);
    expectReused(other);
    expect(withoutKey.status).toBe(409);
    expect((await get<{ status: string }>(`/v1/price-changes/${two.id}`)).status).toBe('suggested');
  });

  it('POST /v1/connections/{connector}/resume: a retry answers the first 200, not a 409; the same key on another connector is a 422', async () => {
    // Arrange
    const { getConnection, pauseConnection } = await import('../../lambdas/data/connections/connections.js');
    const stored = (await getConnection(aliceId, 'takealot'))!;
    expect(await pauseConnection(aliceId, stored.record, 'circuit breaker: test')).toBe(true);

    // Act
    const first = await post<{ status: string }>('/v1/connections/takealot/resume', 'resume-1');
    const retry = await post<{ status: string }>('/v1/connections/takealot/resume', 'resume-1');
    const other = await post<Problem>('/v1/connections/amazon/resume', 'resume-1');
    const withoutKey = await api.request('POST', '/v1/connections/takealot/resume', { auth: alice });

    // Assert
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('connected');
    expectReplayed(retry, first);
    expectReused(other);
    expect(withoutKey.status).toBe(409);
  });

  it('POST /v1/connections/{connector}/sync: a retry answers the first 202 and its Sync-Request, and asks for no second sync', async () => {
    // Act
    const first = await post<{ sync_requested_at: string }>('/v1/connections/takealot/sync', 'sync-1');
    const retry = await post<{ sync_requested_at: string }>('/v1/connections/takealot/sync', 'sync-1');
    const other = await post<Problem>('/v1/connections/takealot/sync', 'sync-1', { body: { full: true } });
    const withoutKey = await api.request('POST', '/v1/connections/takealot/sync', { auth: alice });

    // Assert: run again, the retry would have joined the first (coalesced), as the request without a key does.
    expect(first.status).toBe(202);
    expect(first.headers['sync-request']).toBe('accepted');
    expectReplayed(retry, first);
    expectReused(other);
    expect(withoutKey.status).toBe(202);
    expect(withoutKey.headers['sync-request']).toBe('coalesced');
  });

  it('POST /v1/imports: a retry answers the first job and makes no second; another body or import_type with the key is a 422', async () => {
    // Arrange
    const ndjson = { 'Content-Type': 'application/x-ndjson' };
    const body = `${JSON.stringify({ code: 'P-9', title: 'Nine' })}\n`;

    // Act
    const first = await post<{ id: number }>('/v1/imports?import_type=products', 'import-1', { body, headers: ndjson });
    const retry = await post<{ id: number }>('/v1/imports?import_type=products', 'import-1', { body, headers: ndjson });
    const otherBody = await post<Problem>('/v1/imports?import_type=products', 'import-1', { body: `${JSON.stringify({ code: 'P-8' })}\n`, headers: ndjson });
    const otherType = await post<Problem>('/v1/imports?import_type=offers', 'import-1', { body, headers: ndjson });

    // Assert
    expect(first.status).toBe(202);
    expectReplayed(retry, first);
    expect(retry.headers.location).toBe(`/v1/imports/${first.body.id}`);
    expectReused(otherBody);
    expectReused(otherType);
    expect((await get<{ meta: { total: number } }>('/v1/imports')).meta.total).toBe(1);
  });

  it("keeps one namespace of keys per client: a key used on one operation is a 422 on another, and each answer is kept until the table's TTL", async () => {
    // Act
    const reused = await post<Problem>('/v1/connections/takealot/sync', 'hook-1');

    // Assert
    expectReused(reused);
    const records = [...(await scanTable(api.tableName)).entries()].filter(([key]) => key.startsWith(`${idempotencyPartition(IDEMPOTENCY_SCOPE)}\u0000`));
    // hook-1, apply-1, resume-1, sync-1 and import-1; the repricers were created without a key.
    expect(records).toHaveLength(5);
  });
});
