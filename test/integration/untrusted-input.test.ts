/**
 * Inputs that pass a careless validation and then break what runs after, for every tenant
 * (the issue "No tenant's input can stall the change stream or exhaust a function"), each sent
 * through the local API as a client would: each is refused at the edge, or its job fails
 * plainly, and nothing that SQS or DynamoDB would refuse reaches the stream, the queues or the
 * table. Traffic goes to 127.0.0.1 only.
 */
import type { ImportJob } from '../../lambdas/domain/import-jobs.js';
import { freePort } from '../../tools/local/dynamodb-local.js';
import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { scanTable } from '../support/table-snapshot.js';

let api: TestApi;
const tenant: [string, string] = ['untrusted-uma', 'untrusted-uma-password'];
const hooks: [string, string] = ['untrusted-hal', 'untrusted-hal-password'];
const NDJSON = { 'Content-Type': 'application/x-ndjson' };
const JSON_HEADERS = { 'Content-Type': 'application/json' };

const dataOf = (record: unknown) => (record as { data: Record<string, unknown> }).data;
const product = (code: string, overrides: Record<string, unknown> = {}) =>
  dataOf(productRecord(code, { fee_estimates: { amazon: fees(5, 15) }, ...overrides }));
const ndjson = (lines: readonly unknown[]) => `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`;
const postImport = (type: string, body: string, headers: Record<string, string> = {}) =>
  api.request<ImportJob>('POST', `/v1/imports?import_type=${type}`, { auth: tenant, body, headers: { ...NDJSON, ...headers } });
const jobOf = async (id: number) => (await api.request<ImportJob>('GET', `/v1/imports/${id}`, { auth: tenant })).body;
/** The job once the worker is done with it (bounded: the runtime settles or the test times out). */
const settledJob = async (id: number) => {
  await api.settle();
  return jobOf(id);
};

beforeAll(async () => {
  api = await startTestApi({ events: { webhooks: { schedule: { baseDelayMs: 100, maxDelayMs: 200, windowMs: 400 }, timeoutMs: 1_000 } } });
  await api.createClient(tenant[0], { password: tenant[1], connector: 'amazon' });
  await api.createClient(hooks[0], { password: hooks[1], connector: 'amazon' });
  await api.importRecords(tenant[0], [connectorRecord('amazon'), productRecord('U-1', { fee_estimates: { amazon: fees(5, 15) } })]);
}, 120_000);

afterAll(async () => {
  await api?.close();
});

describe('import bodies that would exhaust the function', () => {
  it('answers 4 MB of empty objects (1.39 million lines) within seconds, naming the line cap', async () => {
    const body = '{}\n'.repeat(1_390_000);
    const started = Date.now();
    const response = await postImport('products', body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ errors: [{ field: 'body', message: expect.stringContaining('50000 lines') }] });
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 20_000);

  it("refuses a body over 4 MiB, which would not fit Lambda's 6 MB invocation payload once encoded", async () => {
    const response = await postImport('products', `${'{}\n'.repeat(Math.ceil((4 * 1024 * 1024) / 3))}`);
    expect(response.status).toBe(413);
  }, 20_000);

  it('lists the first 100 bad lines of many and counts them all', async () => {
    const response = await postImport('products', '{}\n'.repeat(5_000));
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ status: 'failed', total: 5_000, invalid: 5_000 });
    expect(response.body.errors).toHaveLength(100);
  }, 20_000);

  it('answers a retried POST with the same Idempotency-Key with the first job, and makes no second one', async () => {
    const before = (await api.request<{ meta: { total: number } }>('GET', '/v1/imports', { auth: tenant })).body.meta.total;
    const body = ndjson([product('IDEM-1')]);
    const first = await postImport('products', body, { 'Idempotency-Key': 'import-retry-1' });
    const retry = await postImport('products', body, { 'Idempotency-Key': 'import-retry-1' });
    expect([first.status, retry.status]).toEqual([202, 202]);
    expect(retry.body.id).toBe(first.body.id);
    await api.settle();
    const after = (await api.request<{ meta: { total: number } }>('GET', '/v1/imports', { auth: tenant })).body.meta.total;
    expect(after - before).toBe(1);
  }, 30_000);
});

describe('text SQS would refuse', () => {
  it.each([
    ['U+FFFF in a product code', 'products', ndjson([product('BAD-\uffff')]), 'code'],
    ['U+FFFE in an offer id', 'offers', ndjson([dataOf(offerRecord('OFR-\ufffe', 'U-1'))]), 'offer_id'],
    ['a NUL in a product title', 'products', ndjson([product('NUL-1', { title: 'a\u0000b' })]), 'title'],
  ])('refuses %s with the field named, as a failed job', async (_case, type, body, field) => {
    const response = await postImport(type, body);
    expect(response.status).toBe(202);
    expect(response.body.status).toBe('failed');
    expect(response.body.errors[0]!.message).toContain(`${field}: `);
    expect(response.body.errors[0]!.message).toMatch(/well-formed Unicode/);
  });

  it('refuses U+FFFF in the product code of a new repricer with a 400 naming the field', async () => {
    const response = await api.request('POST', '/v1/repricers/', {
      auth: tenant,
      headers: JSON_HEADERS,
      body: '{"product_code":"U-1\\uffff","preferred_price":10,"preferred_profit":1}',
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ errors: [{ field: 'product_code' }] });
  });

  it('echoes unknown keys in import errors as storable, well-formed text, cut without splitting a character', async () => {
    // Valid lines but for one unknown key each, so the key is the whole message: `(record): Unrecognized key: "<key>"`,
    // the key from the 30th character; the long key puts an emoji across the 500-character cut.
    const longKey = `${'k'.repeat(469)}\ud83d\ude00${'k'.repeat(40)}`;
    const body = ndjson([
      { ...product('UK-1'), '\uffff\ufffe\u0001': 1 },
      { ...product('UK-2'), '\ud800': 1 },
      { ...product('UK-3'), [longKey]: 1 },
    ]);
    const response = await postImport('products', body);
    expect(response.body.status).toBe('failed');
    const messages = response.body.errors.map((error) => error.message);
    expect(messages).toHaveLength(3);
    for (const message of messages) {
      expect(message.isWellFormed()).toBe(true);
      for (const refused of ['\uFFFE', '\uFFFF', '\u0001']) expect(message).not.toContain(refused);
      expect(message.length).toBeLessThanOrEqual(500);
    }
    // The job's end went through the stream and the webhook queue without a refusal.
    await api.settle();
    expect((await jobOf(response.body.id)).status).toBe('failed');
  });
});

describe('numbers DynamoDB cannot store', () => {
  it.each([
    ['a dimension', { height_cm: 1e-200 }, 'height_cm'],
    [
      'a commission percentage',
      { fee_estimates: { amazon: { ...fees(5, 15), instock: { commission: 0, fulfilment: 5, commission_percentage: 1e-200 } } } },
      'commission_percentage',
    ],
  ])(
    'refuses %s of 1e-200 at once, naming the field, instead of failing in the worker',
    async (_case, overrides, field) => {
      const response = await postImport('products', ndjson([product('NUM-1', overrides)]));
      expect(response.status).toBe(202);
      const job = response.body.status === 'failed' ? response.body : await settledJob(response.body.id);
      expect(job).toMatchObject({ status: 'failed', invalid: 1 });
      expect(job.errors[0]!.message).toContain(`${field}: `);
    },
    30_000,
  );

  it('refuses a rating of 1e-200 on an offer line, naming the field', async () => {
    const offer = { ...dataOf(offerRecord('O-NUM', 'U-1')), rating_avg: 1e-200 };
    const response = await postImport('offers', ndjson([offer]));
    const job = response.body.status === 'failed' ? response.body : await settledJob(response.body.id);
    expect(job).toMatchObject({ status: 'failed' });
    expect(job.errors[0]!.message).toContain('rating_avg: ');
  }, 30_000);
});

describe('webhooks', () => {
  it.each(['https://93.184.216.34:8443/hooks', 'https://93.184.216.34:22/', 'https://[2606:4700:4700::1111]:6379/'])(
    'refuses a destination on a port other than 443: %s',
    async (url) => {
      const response = await api.request('POST', '/v1/webhooks', { auth: hooks, headers: JSON_HEADERS, body: { url, event_types: ['IMPORT_COMPLETED'] } });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ errors: [{ field: 'url', message: expect.stringContaining('443') }] });
    },
  );

  it('stores the signing secret sealed, never in the clear, and shows a failed connection as a plain outcome', async () => {
    // A local port nothing listens on: the local run admits loopback ports, and the connection is refused.
    const closedPort = await freePort();
    const created = await api.request<{ id: number; secret: string }>('POST', '/v1/webhooks', {
      auth: hooks,
      headers: JSON_HEADERS,
      body: { url: `http://127.0.0.1:${closedPort}/hooks`, event_types: ['IMPORT_COMPLETED'] },
    });
    expect(created.status).toBe(201);
    const { secret } = created.body;
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);

    const table = await scanTable(api.tableName);
    const everything = [...table.values()].join('\n');
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(secret.slice(6));

    // An event for it: the end of an import of this tenant.
    const job = await api.request<ImportJob>('POST', '/v1/imports?import_type=products', { auth: hooks, body: '{}\n', headers: NDJSON });
    expect(job.body.status).toBe('failed');
    let deliveries: { last_error: string | null; attempts: number }[] = [];
    for (let i = 0; i < 50 && !deliveries.some((d) => d.attempts > 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      deliveries = (await api.request<{ deliveries: typeof deliveries }>('GET', `/v1/webhooks/${created.body.id}/deliveries`, { auth: hooks })).body.deliveries;
    }
    expect(deliveries[0]).toMatchObject({ last_error: 'could not connect' });
    expect(JSON.stringify(deliveries)).not.toMatch(/ECONN|EHOST|ENET|ETIMEDOUT/);
    await api.request('DELETE', `/v1/webhooks/${created.body.id}`, { auth: hooks });
  }, 30_000);
});
