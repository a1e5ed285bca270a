/**
 * `npm run bench`: loads tenants of 1,000, 10,000 and 100,000 offers into DynamoDB Local through
 * the import code, then measures `GET /v1/offers` queries at the start, middle and end of each
 * tenant's list: read capacity (as DynamoDB Local reports it and as AWS's model charges it),
 * round trips, latency, and the ratio to the ideal (reading just the page). It also measures
 * each Lambda bundle's size and cold import time beside a bare DynamoDB client bundle.
 * Figures are printed and written to docs/bench/results.json and docs/bench/report.md.
 *   BENCH_SIZES=1000,10000 npm run bench     (smaller run)
 *   DYNAMODB_ENDPOINT=http://localhost:8000 BENCH_TABLE=bench npm run bench
 *     (a running DynamoDB and a kept table: tenants already loaded there are measured again
 *      without being imported again)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalDynamoClient, freePort, startDynamoDbLocal } from '../lib/local/dynamodb-local.js';
import { createTable, tableExists } from '../lib/local/create-table.js';
import { measureBundles } from '../lib/bench/bundles.js';
import { benchRecords } from '../lib/bench/offer-generator.js';
import { readUnits } from '../lib/bench/capacity-model.js';
import type { CallRecord } from '../lib/bench/instrument.js';
import { TABLE_NAME_ENV } from '../lib/table-schema.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 15);
const SELLER = 'bench-seller';

const QUERIES: { name: string; query: string }[] = [
  { name: 'no filter (id)', query: '' },
  { name: 'id DESC', query: '_sort=id:DESC' },
  { name: 'include other offers', query: '_include_other_offers=true' },
  { name: 'competitiveness', query: 'competitiveness=high' },
  { name: 'competitors >= 20', query: 'total_competitors_gte=20' },
  { name: 'both filters', query: 'competitiveness=high&total_competitors_gte=20' },
  { name: 'total_competitors DESC', query: '_sort=total_competitors:DESC' },
  { name: 'offer_price ASC', query: '_sort=offer_price' },
  { name: 'offer_price DESC', query: '_sort=offer_price:DESC' },
  { name: 'updated_at ASC', query: '_sort=updated_at' },
  { name: 'updated_at DESC', query: '_sort=updated_at:DESC' },
];

interface Measurement {
  size: number;
  query: string;
  position: 'start' | 'middle' | 'end';
  start: number;
  total: number;
  pageItems: number;
  roundTrips: number;
  localUnits: number;
  awsUnits: number;
  idealUnits: number;
  medianMs: number;
  p95Ms: number;
  calls: CallRecord[];
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

const main = async () => {
  const dynamo = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal({ port: await freePort() });
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? dynamo!.endpoint;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.AWS_REGION ??= 'local';
  process.env[TABLE_NAME_ENV] = process.env.BENCH_TABLE ?? `repricer-bench-${Date.now()}`;
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
  try {
    const rawClient = createLocalDynamoClient(endpoint);
    if (!(await tableExists(rawClient, process.env[TABLE_NAME_ENV]!))) await createTable(rawClient, process.env[TABLE_NAME_ENV]!);
    const { documentClient } = await import('../lambdas/shared/data/dynamo.js');
    const { instrument } = await import('../lib/bench/instrument.js');
    const { createClientAccount } = await import('../lib/admin/clients.js');
    const { getClient } = await import('../lambdas/shared/data/clients.js');
    const { importRecords } = await import('../lib/admin/import.js');
    const { listOffers } = await import('../lambdas/shared/data/offers-read.js');
    const { offerQueryParameters, planOfferQuery } = await import('../lambdas/shared/domain/offer-query.js');
    const recorder = instrument(documentClient);

    const imports: { size: number; seconds: number; offersPerSecond: number }[] = [];
    const measurements: Measurement[] = [];
    for (const size of SIZES) {
      const username = `bench-${size}`;
      const loaded = await getClient(username);
      const account = loaded ?? (await createClientAccount({ username, sellerId: SELLER }));
      if (!loaded) {
        const summary = await importRecords(benchRecords(size, SELLER), {
          username,
          onProgress: (done, total) => process.stderr.write(`\rimporting ${size} offers: ${done}/${total}`),
        });
        process.stderr.write('\n');
        if (summary.offers !== size) throw new Error(`Import wrote ${summary.offers} of ${size} offers`);
        imports.push({ size, seconds: summary.seconds, offersPerSecond: size / summary.seconds });
      }

      for (const { name, query } of QUERIES) {
        const plan = (q: string) => planOfferQuery(offerQueryParameters.parse(Object.fromEntries(new URLSearchParams(q))));
        const first = await listOffers(account.clientId, plan(query));
        const limit = plan(query).limit;
        const positions = { start: 0, middle: Math.floor(first.total / 2), end: Math.max(0, first.total - limit) } as const;
        for (const [position, start] of Object.entries(positions) as [Measurement['position'], number][]) {
          const q = plan(`${query}&_start=${start}`);
          const times: number[] = [];
          let last: Awaited<ReturnType<typeof recorder.record<Awaited<ReturnType<typeof listOffers>>>>> | undefined;
          for (let r = 0; r < REPETITIONS; r++) {
            const t = performance.now();
            last = await recorder.record(() => listOffers(account.clientId, q));
            times.push(performance.now() - t);
          }
          times.sort((a, b) => a - b);
          const calls = last!.calls;
          const page = calls.at(-1)!;
          measurements.push({
            size,
            query: name,
            position,
            start,
            total: last!.result.total,
            pageItems: last!.result.offers.length,
            roundTrips: calls.length,
            localUnits: calls.reduce((s, c) => s + c.localUnits, 0),
            awsUnits: calls.reduce((s, c) => s + c.awsUnits, 0),
            idealUnits: page.items > 0 ? readUnits(page.bytes, false) : 0,
            medianMs: percentile(times, 0.5),
            p95Ms: percentile(times, 0.95),
            calls,
          });
        }
      }
    }

    const bundles = await measureBundles(root, path.join(root, '.bench', 'bundles'));
    const lines = report(imports, measurements, bundles);
    process.stdout.write(`${lines.join('\n')}\n`);
    mkdirSync(path.join(root, 'docs', 'bench'), { recursive: true });
    writeFileSync(path.join(root, 'docs', 'bench', 'report.md'), `# Benchmark report\n\nWritten by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}.\n${lines.join('\n')}\n`);
    writeFileSync(
      path.join(root, 'docs', 'bench', 'results.json'),
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, repetitions: REPETITIONS, imports, measurements, bundles }, null, 2)}\n`,
    );
  } finally {
    await dynamo?.stop();
  }
};

const report = (
  imports: { size: number; seconds: number; offersPerSecond: number }[],
  measurements: Measurement[],
  bundles: Awaited<ReturnType<typeof measureBundles>>,
): string[] => {
  const lines: string[] = [];
  const out = (line: string) => lines.push(line);
  if (imports.length > 0) {
    out('\n## Import (through the import code, into DynamoDB Local)\n\n| offers | seconds | offers/s |\n|---:|---:|---:|');
    for (const i of imports) out(`| ${i.size} | ${fmt(i.seconds)} | ${fmt(i.offersPerSecond, 0)} |`);
  }

  out('\n## GET /v1/offers (page size 100)\n');
  out('RCU: read capacity per request; "AWS" applies the published model to the items returned, "Local" is what DynamoDB Local reported.');
  out('Ideal: the AWS capacity of one eventually consistent Query returning just the page. Target: AWS RCU <= 1.5 x ideal + 2.\n');
  out('| offers | query | start | total | items | round trips | RCU AWS | RCU Local | ideal | AWS/ideal | within target | median ms | p95 ms |');
  out('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|:-:|---:|---:|');
  for (const m of measurements) {
    const ok = m.awsUnits <= 1.5 * m.idealUnits + 2;
    out(
      `| ${m.size} | ${m.query} | ${m.position} (${m.start}) | ${m.total} | ${m.pageItems} | ${m.roundTrips} | ${fmt(m.awsUnits)} | ${fmt(m.localUnits)} | ${fmt(m.idealUnits)} | ${m.idealUnits ? fmt(m.awsUnits / m.idealUnits, 2) : '-'} | ${ok ? 'yes' : 'NO'} | ${fmt(m.medianMs)} | ${fmt(m.p95Ms)} |`,
    );
  }

  const smallest = Math.min(...measurements.map((m) => m.size));
  const largest = Math.max(...measurements.map((m) => m.size));
  out(`\n## Latency: ${largest} vs ${smallest} offers (median), and last vs first page\n`);
  out('| query | start | ms at smallest | ms at largest | largest/smallest | last/first page at largest |');
  out('|---|---|---:|---:|---:|---:|');
  for (const m of measurements.filter((x) => x.size === largest)) {
    const small = measurements.find((x) => x.size === smallest && x.query === m.query && x.position === m.position)!;
    const first = measurements.find((x) => x.size === largest && x.query === m.query && x.position === 'start')!;
    out(`| ${m.query} | ${m.position} | ${fmt(small.medianMs)} | ${fmt(m.medianMs)} | ${fmt(m.medianMs / small.medianMs, 2)} | ${m.position === 'end' ? fmt(m.medianMs / first.medianMs, 2) : ''} |`);
  }

  const bare = bundles[0]!;
  out('\n## Lambda bundles (esbuild, as deployed) and cold import time (median of fresh Node processes)\n');
  out('| bundle | KiB | x bare | cold import ms | x bare |\n|---|---:|---:|---:|---:|');
  for (const b of bundles) {
    out(`| ${b.name} | ${fmt(b.bytes / 1024)} | ${fmt(b.bytes / bare.bytes, 2)} | ${fmt(b.coldImportMs)} | ${fmt(b.coldImportMs / bare.coldImportMs, 2)} |`);
  }
  const worst = measurements.reduce((w, m) => Math.max(w, m.roundTrips), 0);
  out(`\nMost round trips per request: ${worst}. Requests outside the capacity target: ${measurements.filter((m) => m.awsUnits > 1.5 * m.idealUnits + 2).length} of ${measurements.length}.`);
  return lines;
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
