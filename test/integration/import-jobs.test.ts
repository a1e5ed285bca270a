/**
 * Import jobs through the API (docs/imports.md): `POST /v1/imports` validates the whole body,
 * a worker run from the local queue writes it with the CLI's code, and the job's counters say
 * what happened, even when the worker dies mid-job.
 */
import type { ImportJob } from '../../lambdas/domain/import-jobs.js';
import { commitPendingChunk } from '../../lambdas/data/imports/imports.js';
import { connectorRecord, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { bySize } from '../support/profile.js';
import { step } from '../support/story.js';

let api: TestApi;
const SELLER = 'seller-a';
const viaApi: [string, string] = ['jobs-api', 'jobs-api-password'];
const viaCli: [string, string] = ['jobs-cli', 'jobs-cli-password'];
const other: [string, string] = ['jobs-other', 'jobs-other-password'];

const PRODUCTS = Array.from({ length: 20 }, (_, i) => `SKU-${i}`);
/**
 * Lines a file: more than a page of the offer list (100) and, where a worker dies, more chunks
 * than it writes before it dies (CHUNK_LINES.offers, 200, a chunk). `npm run test:full` imports
 * the original, larger files.
 */
const OFFER_FILE_LINES = bySize(150, 300);
const CLI_FILE_LINES = bySize(120, 250);
const CRASH_FILE_LINES = bySize(450, 600);
const DOOMED_FILE_LINES = bySize(300, 500);
const dataOf = (record: unknown) => (record as { data: Record<string, unknown> }).data;
const offerLines = (count: number, prefix = 'OFR', overrides: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: count }, (_, i) =>
    dataOf(
      offerRecord(`${prefix}-${i}`, PRODUCTS[i % PRODUCTS.length]!, {
        seller_id: i % 3 === 0 ? SELLER : `seller-${i % 7}`,
        offer_price: 10 + (i % 50),
        total_competitors: i % 9,
        competitiveness: i % 2 === 0 ? 'high' : 'low',
        ...overrides(i),
      }),
    ),
  );
const ndjson = (lines: readonly unknown[]) => `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`;

const postImport = (auth: [string, string], type: string, body: string | Buffer, contentType = 'application/x-ndjson') =>
  api.request<ImportJob>('POST', `/v1/imports?import_type=${type}`, { auth, body, headers: { 'Content-Type': contentType } });

const getJob = async (auth: [string, string], id: number) => (await api.request<ImportJob>('GET', `/v1/imports/${id}`, { auth })).body;

/** Every offer of a client, as the API lists them, without what differs between two tenants (ids, times). */
const comparableOffers = async (auth: [string, string]) => {
  const offers: Record<string, unknown>[] = [];
  for (let start = 0; ; start += 100) {
    const page = await api.request<{ meta: { total: number }; offers: Record<string, unknown>[] }>(
      'GET',
      `/v1/offers?_include_other_offers=true&_start=${start}`,
      { auth },
    );
    offers.push(...page.body.offers);
    if (start + 100 >= page.body.meta.total) break;
  }
  return offers
    .map(({ id: _id, created_at: _c, updated_at: _u, product, ...rest }): Record<string, unknown> => {
      const { id: _pid, created_at: _pc, updated_at: _pu, ...productRest } = product as Record<string, unknown>;
      return { ...rest, product: productRest };
    })
    .sort((a, b) => String(a.offer_id).localeCompare(String(b.offer_id)));
};

const offerTotal = async (auth: [string, string]) =>
  (await api.request<{ meta: { total: number } }>('GET', '/v1/offers?_include_other_offers=true&_limit=1', { auth })).body.meta.total;

/** Set by a step that kills the worker: called with the end of a written chunk, before its counts are committed (the worst moment to die). */
let beforeCommit: ((to: number) => void) | undefined;
const commitChunk: typeof commitPendingChunk = (clientId, id, from, pending, now) => {
  beforeCommit?.(pending.to);
  return commitPendingChunk(clientId, id, from, pending, now);
};

beforeAll(async () => {
  api = await startTestApi({ events: { imports: { commitChunk } } });
  for (const [username, password] of [viaApi, viaCli, other]) await api.createClient(username, { password, sellerId: SELLER, connector: 'amazon' });
  const catalogue = PRODUCTS.map((code) => productRecord(code));
  await api.importRecords(viaApi[0], [connectorRecord('amazon'), ...catalogue]);
  await api.importRecords(viaCli[0], catalogue);
}, 120_000);

afterAll(async () => {
  beforeCommit = undefined;
  await api?.close();
});

afterEach(() => {
  beforeCommit = undefined;
});

describe('POST /v1/imports', () => {
  it('runs import jobs in one sequence: API and CLI imports, skips and updates, bad lines, repricer imports, listing, a worker that dies', async () => {
    await step('lands offers exactly as the CLI import does, and counts them', async () => {
      // Arrange
      const lines = offerLines(OFFER_FILE_LINES);

      // Act
      const accepted = await postImport(viaApi, 'offers', ndjson(lines));
      await api.importRecords(
        viaCli[0],
        lines.map((data) => ({ type: 'offer', data })),
      );
      await api.settle();

      // Assert
      expect(accepted.status).toBe(202);
      expect(accepted.headers.location).toBe(`/v1/imports/${accepted.body.id}`);
      expect(accepted.body).toMatchObject({ status: 'pending', trigger_type: 'public_api', import_type: 'offers', total: OFFER_FILE_LINES, processed: 0 });
      expect(await getJob(viaApi, accepted.body.id)).toMatchObject({
        status: 'completed',
        total: OFFER_FILE_LINES,
        processed: OFFER_FILE_LINES,
        created: OFFER_FILE_LINES,
        updated: 0,
        skipped: 0,
        invalid: 0,
        errors: [],
      });
      const [apiOffers, cliOffers] = [await comparableOffers(viaApi), await comparableOffers(viaCli)];
      expect(apiOffers).toHaveLength(OFFER_FILE_LINES);
      expect(apiOffers).toEqual(cliOffers);
    });
    await step('counts an unchanged line as skipped and a changed one as updated', async () => {
      // Arrange
      const lines = offerLines(OFFER_FILE_LINES).map((line, i) => (i < 10 ? { ...line, offer_price: 999 } : line));

      // Act
      const accepted = await postImport(viaApi, 'offers', ndjson(lines));
      await api.settle();

      // Assert
      expect(await getJob(viaApi, accepted.body.id)).toMatchObject({
        status: 'completed',
        processed: OFFER_FILE_LINES,
        created: 0,
        updated: 10,
        skipped: OFFER_FILE_LINES - 10,
      });
    });
    await step('writes nothing when a line is bad, and lists each bad line by number', async () => {
      // Arrange
      const before = await offerTotal(viaApi);
      const lines: unknown[] = offerLines(5, 'BAD');
      lines[1] = { ...(lines[1] as object), offer_price: '12' };
      lines[3] = 'not json';

      // Act
      const accepted = await postImport(viaApi, 'offers', ndjson(lines));
      await api.settle();

      // Assert
      expect(accepted.status).toBe(202);
      expect(accepted.body).toMatchObject({ status: 'failed', total: 5, processed: 0, invalid: 2 });
      expect(accepted.body.errors.map((e) => e.line)).toEqual([2, 4]);
      expect(accepted.body.errors[0]!.message).toContain('offer_price');
      expect(await offerTotal(viaApi)).toBe(before);
    });
    await step('fails a job whose offer names an unknown product before writing anything', async () => {
      // Arrange
      const before = await offerTotal(viaApi);
      const lines = offerLines(3, 'REF').map((line, i) => (i === 2 ? { ...line, product_code: 'NO-SUCH' } : line));

      // Act
      const accepted = await postImport(viaApi, 'offers', ndjson(lines));
      await api.settle();

      // Assert
      const job = await getJob(viaApi, accepted.body.id);
      expect(job).toMatchObject({ status: 'failed', processed: 0, invalid: 1, errors: [{ line: 3, message: expect.stringContaining('NO-SUCH') }] });
      expect(await offerTotal(viaApi)).toBe(before);
    });
    await step('refuses connector types, another media type, a missing import_type and a body over 5 MB', async () => {
      // Act
      const connector = await postImport(viaApi, 'products', ndjson([{ type: 'connector_type', data: dataOf(connectorRecord('evil')) }]));
      const json = await postImport(viaApi, 'offers', ndjson(offerLines(1)), 'application/json');
      const untyped = await api.request('POST', '/v1/imports', {
        auth: viaApi,
        body: ndjson(offerLines(1)),
        headers: { 'Content-Type': 'application/x-ndjson' },
      });
      const huge = await postImport(viaApi, 'offers', Buffer.alloc(5 * 1024 * 1024 + 1, 'x'));

      // Assert
      expect(connector.body).toMatchObject({ status: 'failed', invalid: 1, errors: [{ line: 1, message: expect.stringContaining('connectors import') }] });
      expect(json.status).toBe(415);
      expect(untyped.status).toBe(400);
      expect(huge.status).toBe(413);
    });
    await step('upsert by product and connector with the computed fields of POST /v1/repricers/', async () => {
      // Arrange
      const line = { product_code: 'SKU-1', preferred_price: 100, preferred_profit: 20 };
      const other2 = { product_code: 'SKU-2', preferred_price: 50, preferred_profit: 5 };
      const viaPost = await api.request<Record<string, unknown>>('POST', '/v1/repricers/', { auth: viaCli, body: line });
      const repricerOf = async (code: string) =>
        (await api.request<{ meta: { total: number }; repricers: Record<string, unknown>[] }>('GET', `/v1/repricers?product_code=${code}`, { auth: viaApi }))
          .body;

      // Act
      const first = await postImport(viaApi, 'repricers', ndjson([line, other2]));
      await api.settle();
      const created = await repricerOf('SKU-1');
      const second = await postImport(viaApi, 'repricers', ndjson([{ ...line, preferred_price: 110 }, other2]));
      await api.settle();

      // Assert
      expect(await getJob(viaApi, first.body.id)).toMatchObject({ status: 'completed', created: 2, updated: 0, skipped: 0 });
      expect(await getJob(viaApi, second.body.id)).toMatchObject({ status: 'completed', created: 0, updated: 1, skipped: 1 });
      const { min_price, fixed_fulfilment_fee, min_profit, preferred_price, enabled } = viaPost.body;
      expect(created.repricers[0]).toMatchObject({ min_price, fixed_fulfilment_fee, min_profit, preferred_price, enabled });
      const updated = await repricerOf('SKU-1');
      expect(updated.meta.total).toBe(1);
      expect(updated.repricers[0]).toMatchObject({ id: created.repricers[0]!.id, preferred_price: 110 });
      expect((await repricerOf('SKU-2')).meta.total).toBe(1);
    });
    await step('refuses a line whose pricing leaves no positive min_price, by number', async () => {
      // Act
      const accepted = await postImport(viaApi, 'repricers', ndjson([{ product_code: 'SKU-3', preferred_price: 10, preferred_profit: 9.99 }]));
      await api.settle();

      // Assert
      expect(await getJob(viaApi, accepted.body.id)).toMatchObject({ status: 'failed', invalid: 1, errors: [{ line: 1 }] });
    });
    await step("lists only the client's own jobs, filtered and sorted, and hides another client's job", async () => {
      // Arrange
      const mine = await postImport(viaApi, 'products', ndjson([dataOf(productRecord('LIST-1'))]));
      await api.settle();

      // Act
      const all = await api.request<{ meta: { total: number }; imports: ImportJob[] }>('GET', '/v1/imports?_sort=id:DESC', { auth: viaApi });
      const failed = await api.request<{ meta: { total: number }; imports: ImportJob[] }>('GET', '/v1/imports?status=failed&import_type=offers', {
        auth: viaApi,
      });
      const foreign = await api.request('GET', `/v1/imports/${mine.body.id}`, { auth: other });
      const foreignList = await api.request<{ imports: ImportJob[] }>('GET', '/v1/imports', { auth: other });

      // Assert
      expect(all.body.imports[0]!.id).toBe(mine.body.id);
      expect(all.body.imports.map((j) => j.id)).toEqual([...all.body.imports.map((j) => j.id)].sort((a, b) => b - a));
      expect(failed.body.imports.every((j) => j.status === 'failed' && j.import_type === 'offers')).toBe(true);
      expect(failed.body.meta.total).toBe(failed.body.imports.length);
      expect(failed.body.meta.total).toBeGreaterThanOrEqual(2);
      expect(foreign.status).toBe(404);
      expect(foreignList.body.imports.map((j) => j.id)).not.toContain(mine.body.id);
    });
    await step('answers 400 naming an unknown filter value', async () => {
      const response = await api.request<{ errors: { field: string }[] }>('GET', '/v1/imports?status=done', { auth: viaApi });
      expect(response.status).toBe(400);
      expect(response.body.errors[0]!.field).toBe('status');
    });
    await step('writes the same import records, with trigger_type cli, one per kind of line', async () => {
      // Arrange
      const { importRecords } = await import('../../tools/admin/import.js');
      const lines = [
        productRecord('CLI-1'),
        ...offerLines(CLI_FILE_LINES, 'CLIJOB').map((data, i) => ({ type: 'offer', data: { ...data, product_code: i === 0 ? 'CLI-1' : data.product_code } })),
      ];

      // Act
      const summary = await importRecords(lines, { username: viaCli[0], jobRecords: true });
      await api.settle();
      const listed = await api.request<{ imports: ImportJob[] }>('GET', '/v1/imports?_sort=id:DESC&_limit=2', { auth: viaCli });

      // Assert
      expect(summary).toMatchObject({ products: 1, offers: CLI_FILE_LINES, unchangedOffers: 0 });
      expect(
        listed.body.imports.map(({ import_type, trigger_type, status, total, processed, created }) => ({
          import_type,
          trigger_type,
          status,
          total,
          processed,
          created,
        })),
      ).toEqual([
        { import_type: 'offers', trigger_type: 'cli', status: 'completed', total: CLI_FILE_LINES, processed: CLI_FILE_LINES, created: CLI_FILE_LINES },
        { import_type: 'products', trigger_type: 'cli', status: 'completed', total: 1, processed: 1, created: 1 },
      ]);
    });
    await step('records a file with a bad line as a failed import, with nothing written', async () => {
      // Arrange
      const { importRecords } = await import('../../tools/admin/import.js');

      // Act
      const outcome = importRecords([productRecord('CLI-BAD', { soh: 'many' })], { username: viaCli[0], jobRecords: true });

      // Assert
      await expect(outcome).rejects.toThrow(/line 1/);
      const listed = await api.request<{ imports: ImportJob[] }>('GET', '/v1/imports?_sort=id:DESC&_limit=1', { auth: viaCli });
      expect(listed.body.imports[0]).toMatchObject({ trigger_type: 'cli', status: 'failed', invalid: 1, errors: [{ line: 1 }] });
      expect((await api.request('GET', '/v1/products/CLI-BAD', { auth: viaCli })).status).toBe(404);
    });
    await step('is resumed by the redelivery and counts every line exactly once', async () => {
      // Arrange: the first delivery dies after writing lines 201-400, before counting them.
      let crashes = 0;
      beforeCommit = (to) => {
        if (to === 400 && crashes === 0) {
          crashes++;
          throw new Error('worker killed');
        }
      };
      const lines = offerLines(CRASH_FILE_LINES, 'CRASH');

      // Act
      const accepted = await postImport(viaApi, 'offers', ndjson(lines));
      await api.settle();

      // Assert
      expect(crashes).toBe(1);
      expect(await getJob(viaApi, accepted.body.id)).toMatchObject({
        status: 'completed',
        total: CRASH_FILE_LINES,
        processed: CRASH_FILE_LINES,
        created: CRASH_FILE_LINES,
        updated: 0,
        skipped: 0,
      });
      const crashed = (await comparableOffers(viaApi)).filter((o) => String(o.offer_id).startsWith('CRASH-'));
      expect(crashed).toHaveLength(CRASH_FILE_LINES);
    });
    await step('ends failed, visibly, when it dies on every delivery', async () => {
      // Arrange
      beforeCommit = (to) => {
        if (to > 200) throw new Error('worker killed');
      };

      // Act
      const accepted = await postImport(viaApi, 'offers', ndjson(offerLines(DOOMED_FILE_LINES, 'DOOMED')));
      await api.settle();

      // Assert
      const job = await getJob(viaApi, accepted.body.id);
      expect(job).toMatchObject({ status: 'failed', processed: 200, created: 200, errors: [{ line: 201, message: expect.stringContaining('stopped') }] });
      expect(job.end_time).not.toBeNull();
    });
  }, 900_000);
});
