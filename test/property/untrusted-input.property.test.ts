/**
 * Random text and numbers sent as a client would (an NDJSON products import through the local
 * API): each value is either refused at the edge, the job failed with its field named, or it
 * travels through the stream, the queues and DynamoDB Local unchanged, and nothing is dead-
 * lettered or given up on. The oracle is written here from SQS's and DynamoDB's documented
 * rules, not taken from the code under test.
 *   FC_NUM_RUNS=200 npm test -- test/property/untrusted-input.property.test.ts
 */
import fc from 'fast-check';
import type { ImportJob } from '../../lambdas/domain/import-jobs.js';
import { connectorRecord, fees, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { fcParameters } from '../support/seed.js';

const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 12);
const client: [string, string] = ['fuzz-fay', 'fuzz-fay-password'];
let api: TestApi;
let clientId: string;

/** SQS's message characters (#x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF); a lone surrogate is none of them. */
const sqsCarries = (text: string): boolean =>
  [...text].every((char) => {
    const cp = char.codePointAt(0)!;
    return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000;
  }) && ![...text].some((char) => char.length === 1 && char.charCodeAt(0) >= 0xd800 && char.charCodeAt(0) <= 0xdfff);
/** DynamoDB's numbers: zero, or a magnitude from 1E-130 to below 1E126. */
const dynamoCarries = (value: number): boolean => value === 0 || (Math.abs(value) >= 1e-130 && Math.abs(value) < 1e126);

const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
const edgeChars = fc.constantFrom('\t', '\n', '\r', '\u0000', '\u001f', '\ud800', '\udfff', '\ufffe', '\uffff', '\ufffd', '😀', 'é', '"', '\\');
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: anyUnit, maxLength: 8 }),
  fc.string({ unit: fc.oneof(edgeChars, fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 })), maxLength: 8 }),
);
const dimension = fc.oneof(fc.double({ min: 0, max: 100_000, noNaN: true }), fc.constantFrom(0, 1e-200, 5e-324, 1e-130, 1e-131, 99_999.999_999_999, 123.456));

beforeAll(async () => {
  api = await startTestApi();
  ({ clientId } = await api.createClient(client[0], { password: client[1], connector: 'amazon' }));
  await api.importRecords(client[0], [connectorRecord('amazon')]);
}, 120_000);

afterAll(async () => {
  await api?.close();
});

it('refuses at the edge, or carries unchanged to the table, every random title, code suffix and dimension', async () => {
  const { getProduct } = await import('../../lambdas/data/offers/products.js');
  let run = 0;
  await fc.assert(
    fc.asyncProperty(text, text, dimension, async (suffix, title, height) => {
      run += 1;
      const code = `F${run}-${suffix}`;
      const line = { ...(productRecord(code, { fee_estimates: { amazon: fees(5, 15) } }) as { data: object }).data, title, height_cm: height };
      const response = await api.request<ImportJob>('POST', '/v1/imports?import_type=products', {
        auth: client,
        body: `${JSON.stringify(line)}\n`,
        headers: { 'Content-Type': 'application/x-ndjson' },
      });
      expect(response.status).toBe(202);

      const codeOk = sqsCarries(code) && code.length <= 64;
      const titleOk = sqsCarries(title) && title.length <= 500;
      const heightOk = dynamoCarries(height);
      if (!(codeOk && titleOk && heightOk)) {
        // Refused at the edge, every refused field named.
        expect(response.body.status).toBe('failed');
        const message = response.body.errors[0]?.message ?? '';
        const refused = [...(codeOk ? [] : ['code: ']), ...(titleOk ? [] : ['title: ']), ...(heightOk ? [] : ['height_cm: '])];
        // Every refused field is named, unless the message was cut short: then at least the first.
        const named = refused.filter((field) => message.includes(field));
        expect(named.length).toBe(message.endsWith('…') ? Math.max(1, named.length) : refused.length);
        expect(message.isWellFormed()).toBe(true);
        return;
      }
      await api.settle();
      const job = (await api.request<ImportJob>('GET', `/v1/imports/${response.body.id}`, { auth: client })).body;
      expect(job).toMatchObject({ status: 'completed', created: 1 });
      const stored = await getProduct(clientId, code);
      expect(stored).toMatchObject({ code, title, height_cm: height });
      expect(api.failures()).toEqual([]);
    }),
    fcParameters({ numRuns: NUM_RUNS }),
  );
  await api.settle();
  expect(api.failures()).toEqual([]);
}, 300_000);
