/**
 * `npm run bench`: the data layer's costs and speeds against DynamoDB Local, with the list
 * maintenance run from the table's change stream by the deployed handlers (the local event
 * runtime). For each tenant size (1,000, 10,000 and 100,000 offers by default) it loads the
 * tenant through the import code, then measures:
 *  - write units counted from every item actually written (each stream record priced with
 *    AWS's model, transactional writes twice): per new offer in bulk, per single offer change
 *    (realistic, worst case, flags only), per change of a bulk sync, per repricer write;
 *  - the change-stream lag from an offer's write to its listing;
 *  - list requests (offers and repricers): round trips, read units, latency;
 * then import throughput with 1 and with 8 concurrent writers, repricing evaluations (read and
 * write units of one evaluation and its decision, evaluations per second, at products with 2, 20
 * and 200 competitor offers), the workload's cost per hour (docs/design.md, "Data") beside the old
 * layout's, and the Lambda bundles. Figures are printed and
 * written to docs/bench/results.json and docs/bench/report.md.
 *   BENCH_SIZES=1000,10000 npm run bench     (quick run)
 *   DYNAMODB_ENDPOINT=http://localhost:8000 BENCH_TABLE=bench npm run bench
 *     (a running DynamoDB and a kept table: tenants an earlier run loaded there are measured
 *      again without being imported again, and their load figures are reported from that run)
 * Other knobs: BENCH_REPETITIONS (timed repetitions per list request, 15), BENCH_CHANGES (single
 * changes per kind, 30), BENCH_THROUGHPUT_OFFERS (offers per throughput import, 10000),
 * BENCH_LAG_CHANGES (200), BENCH_REPRICING_PRODUCTS (products per competitor count, 20),
 * BENCH_EVALUATIONS (timed evaluations per competitor count, 200), BENCH_SKIP (comma-separated:
 * throughput, lag, repricing, bundles).
 *   BENCH_ONLY=repricing npm run bench     (only the repricing evaluations, a few minutes: their
 *     figures replace those in results.json, the rest is kept, and report.md is written again)
 *   npm run bench -- --report     (report.md written again from results.json)
 *   npm run bench -- --bundles    (only the bundles measured again, into results.json and report.md)
 *   npm run bench -- --market-sync [--quick] [--offers 1000] ...   (the market loop against the
 *     marketplace simulator: convergence, cost, freshness, politeness; tools/bench/market-sync.ts,
 *     docs/performance.md; printed, and written to .bench/market-sync.json)
 *   npm run bench -- --planner-sim [--quick] [--seed 1] [--minutes 120] [--budget 100]   (the read
 *     planner against today's fixed tiers, a discrete-event simulation of 1,000 tenants, no
 *     table: tools/bench/planner-sim.ts, docs/performance.md; printed, and written to
 *     .bench/planner-sim.json)
 *   npm run bench -- --prices [--quick] [--skip faults] ...   (decisions reaching the simulator:
 *     reaction, safety under faults, exactly once, kill switch, outcome, cost; tools/bench/prices.ts,
 *     docs/performance.md; printed, and written to .bench/prices.json)
 *   npm run bench -- --shared-pages [--quick] [--tenants 50] [--products 2000] [--sellers-per-product 10]
 *     [--minutes 6] [--limit 10]   (many sellers end to end: one tenant per simulator seller account
 *     on shared product lines, the market loop ticking every minute for that many real minutes;
 *     reads per page per minute, reads per second, view ages, writes per look; tools/bench/shared-pages.ts,
 *     docs/performance.md; printed, and written to .bench/shared-pages.json)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalDynamoClient, freePort, startDynamoDbLocal } from '../tools/local/dynamodb-local.js';
import { createTable, tableExists } from '../tools/local/create-table.js';
import { TABLE_NAME_ENV } from '../lambdas/config/table-schema.js';
import type { BenchSummary } from '../tools/bench/report.js';

// The handlers' CloudWatch metrics (EMF lines) would bury the figures: the benchmarks print their own.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const numbers = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').map(Number);
const SIZES = numbers('BENCH_SIZES', '1000,10000,100000');
const REPETITIONS = numbers('BENCH_REPETITIONS', '15')[0]!;
const CHANGES = numbers('BENCH_CHANGES', '30')[0]!;
const BULK = 1_000;
const REPRICERS_MEASURED = 30;
const THROUGHPUT_OFFERS = numbers('BENCH_THROUGHPUT_OFFERS', '10000')[0]!;
const LAG_CHANGES = numbers('BENCH_LAG_CHANGES', '200')[0]!;
const LAG_RATE = 10;
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const REPRICING = { products: numbers('BENCH_REPRICING_PRODUCTS', '20')[0]!, evaluations: numbers('BENCH_EVALUATIONS', '200')[0]! };
const ONLY = process.env.BENCH_ONLY;
if (ONLY !== undefined && ONLY !== 'repricing') throw new Error(`BENCH_ONLY=${ONLY}: only "repricing" can run alone`);

const say = (line: string) => process.stderr.write(`${line}\n`);
const machine = () => `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`;
const loadAverage = (loads: readonly number[]) => ({ min: Math.min(...loads), mean: loads.reduce((a, b) => a + b, 0) / loads.length, max: Math.max(...loads) });
const RESULTS = path.join(root, 'docs', 'bench', 'results.json');

const writeOutputs = async (summary: BenchSummary) => {
  const { buildReport } = await import('../tools/bench/report.js');
  const lines = buildReport(summary);
  process.stdout.write(`${lines.join('\n')}\n`);
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(
    path.join(path.dirname(RESULTS), 'report.md'),
    `# Benchmark report\n\nWritten by \`npm run bench\` on ${summary.date.slice(0, 10)}.\n${lines.join('\n')}\n`,
  );
  writeFileSync(RESULTS, `${JSON.stringify(summary, null, 2)}\n`);
};

/** `--report`: the report again from the results; `--bundles`: the bundles measured again into them. */
const rework = async (mode: string) => {
  if (mode === '--planner-sim') return plannerSim(process.argv.slice(3));
  const summary = JSON.parse(readFileSync(RESULTS, 'utf8')) as BenchSummary & Record<string, unknown>;
  if (mode === '--bundles') {
    const { measureBundles } = await import('../tools/bench/bundles.js');
    Object.assign(summary, { bundles: await measureBundles(root, path.join(root, '.bench', 'bundles')), bundlesMeasured: new Date().toISOString() });
  } else if (mode !== '--report') throw new Error(`Unknown option ${mode}: --report or --bundles`);
  await writeOutputs(summary);
};

const main = async () => {
  const began = performance.now();
  // The machine's load average over the run: other work on it slows every timed figure.
  const loads: number[] = [os.loadavg()[0]!];
  const sampler = setInterval(() => loads.push(os.loadavg()[0]!), 15_000);
  sampler.unref();
  const dynamo = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal({ port: await freePort() });
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? dynamo!.endpoint;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.AWS_REGION ??= 'local';
  const table = (process.env[TABLE_NAME_ENV] = process.env.BENCH_TABLE ?? `repricer-bench-${Date.now()}`);
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
  const runtimeErrors: string[] = [];
  let harness: Awaited<ReturnType<typeof import('../tools/bench/harness.js').createHarness>> | undefined;
  try {
    const rawClient = createLocalDynamoClient(endpoint);
    const reused = await tableExists(rawClient, table);
    if (!reused) await createTable(rawClient, table);
    say(`DynamoDB ${endpoint}, table ${table}${reused ? ' (reused)' : ''}`);

    const { documentClient } = await import('../lambdas/data/table/dynamo.js');
    const { createHarness } = await import('../tools/bench/harness.js');
    const { startEventRuntime } = await import('../tools/local/event-runtime.js');
    const scenarios = await import('../tools/bench/scenarios.js');
    const { measureBundles } = await import('../tools/bench/bundles.js');
    const { workloadInputs } = await import('../tools/bench/report.js');
    const { workloadCost, oldWorkloadCost, OLD_LAYOUT } = await import('../tools/bench/workload.js');

    const h = (harness = await createHarness(
      documentClient,
      (options) => startEventRuntime({ endpoint, tableName: table, onError: (error) => runtimeErrors.push(error.message), ...options }),
      // A kept table was settled when the run that loaded it ended: its stream is history.
      reused ? 'LATEST' : 'TRIM_HORIZON',
    ));
    await scenarios.warmUp(h, Date.now().toString(36));
    const { measureRepricing } = await import('../tools/bench/repricing.js');

    if (ONLY === 'repricing') {
      const repricing = await measureRepricing(h, Date.now().toString(36), REPRICING);
      await h.stop();
      const previous = JSON.parse(readFileSync(RESULTS, 'utf8')) as BenchSummary;
      await writeOutputs({
        ...previous,
        repricing,
        repricingRun: {
          date: new Date().toISOString(),
          node: process.version,
          machine: machine(),
          loadAverage: loadAverage(loads),
          settings: REPRICING,
          failures: { evaluator: h.failures(), runtimeErrors },
        },
      });
      return;
    }

    type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer E)[] ? E[] : T[K] };
    const results: Pick<
      Mutable<BenchSummary>,
      'sizes' | 'loads' | 'checks' | 'operations' | 'repricerGets' | 'lag' | 'offerReads' | 'repricerReads' | 'throughput'
    > = {
      sizes: SIZES,
      loads: [],
      checks: [],
      operations: [],
      repricerGets: [],
      lag: [],
      offerReads: [],
      repricerReads: [],
      throughput: [],
    };
    const tenants: { tenant: import('../tools/bench/scenarios.js').Tenant; repricers: number }[] = [];
    for (const size of SIZES) {
      say(`\n== ${size} offers`);
      const { tenant, load, checks } = await scenarios.loadTenant(h, size);
      if (load) results.loads.push(load);
      results.checks.push(...checks);
      results.operations.push(...(await scenarios.measureSingleChanges(h, tenant, ['realistic', 'worst', 'flags'], CHANGES)));
      results.operations.push(await scenarios.measureBulkChanges(h, tenant, BULK));
      const repricers = await scenarios.measureRepricerWrites(h, tenant, REPRICERS_MEASURED);
      results.operations.push(...repricers.figures);
      results.repricerGets.push({ size, readUnits: repricers.getReadUnits });
      if (!SKIP.has('lag')) results.lag.push(await scenarios.measureLag(h, tenant, LAG_CHANGES, LAG_RATE));
      tenants.push({ tenant, repricers: repricers.kept });
    }

    say(`\n== list requests (${REPETITIONS} repetitions, the sizes in turn)`);
    await h.withoutRuntime(async () => {
      results.offerReads.push(
        ...(await scenarios.measureOfferReads(
          h,
          tenants.map((t) => t.tenant),
          REPETITIONS,
        )),
      );
      const kept = new Map(tenants.map((t) => [t.tenant.size, t.repricers]));
      results.repricerReads.push(
        ...(
          await scenarios.measureRepricerReads(
            h,
            tenants.map((t) => t.tenant),
            REPETITIONS,
          )
        ).map((m) => ({ ...m, repricers: kept.get(m.size)! })),
      );
    });

    if (!SKIP.has('throughput')) {
      say(`\n== import throughput, ${THROUGHPUT_OFFERS} offers`);
      const runId = Date.now().toString(36);
      for (const writers of [1, 8]) results.throughput.push(await scenarios.measureThroughput(h, THROUGHPUT_OFFERS, writers, runId));
    }
    const repricing = SKIP.has('repricing') ? undefined : await measureRepricing(h, Date.now().toString(36), REPRICING);
    await h.stop();
    const maintainerFailures = h.failures();

    say('\n== bundles');
    const bundles = SKIP.has('bundles') ? [] : await measureBundles(root, path.join(root, '.bench', 'bundles'));

    const largest = Math.max(...SIZES);
    const inputs = workloadInputs(results, largest);
    const workload = inputs
      ? {
          size: largest,
          inputs,
          mixed: workloadCost(inputs),
          allPriceChanges: workloadCost(inputs, inputs.singlePriceChange),
          allWorstChanges: workloadCost(inputs, inputs.singleWorstChange),
          oldLow: oldWorkloadCost(OLD_LAYOUT.changeWriteUnits[0]),
          oldHigh: oldWorkloadCost(OLD_LAYOUT.changeWriteUnits[1]),
        }
      : undefined;

    const summary: BenchSummary & Record<string, unknown> = {
      date: new Date().toISOString(),
      node: process.version,
      machine: machine(),
      loadAverage: loadAverage(loads),
      table: { name: table, reused },
      minutes: (performance.now() - began) / 60_000,
      settings: {
        repetitions: REPETITIONS,
        changesPerKind: CHANGES,
        bulk: BULK,
        repricersMeasured: REPRICERS_MEASURED,
        throughputOffers: THROUGHPUT_OFFERS,
        lagChanges: LAG_CHANGES,
        lagRate: LAG_RATE,
      },
      failures: { maintainer: maintainerFailures, runtimeErrors, strayStreamRecords: h.meter.stray },
      ...results,
      workload,
      ...(repricing ? { repricing } : {}),
      bundles,
    };
    await writeOutputs(summary);
  } finally {
    clearInterval(sampler);
    await harness?.stop();
    await dynamo?.stop();
  }
};

/** `--market-sync`: its own DynamoDB Local and table; figures printed with their targets. */
const marketSync = async (argv: readonly string[]) => {
  const dynamo = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal({ port: await freePort() });
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? dynamo!.endpoint;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.AWS_REGION ??= 'local';
  const table = (process.env[TABLE_NAME_ENV] = `repricer-market-bench-${Date.now()}`);
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
  const runtimeErrors: string[] = [];
  try {
    // Loaded once the endpoint is set: the data layer's client reads it when its module loads.
    const { marketSyncSettings, runMarketSyncBench } = await import('../tools/bench/market-sync.js');
    const settings = marketSyncSettings(argv);
    await createTable(createLocalDynamoClient(endpoint), table);
    say(`DynamoDB ${endpoint}, table ${table}`);
    const report = await runMarketSyncBench(
      { endpoint, tableName: table, onError: (error) => runtimeErrors.push(error.message), runId: Date.now().toString(36) },
      settings,
    );
    const lines = [
      `Market sync benchmark${settings.quick ? ' (quick)' : ''}, ${new Date().toISOString()}, ${machine()}`,
      ...report.lines,
      `Runtime errors: ${runtimeErrors.length}${runtimeErrors.length ? ` (first: ${runtimeErrors[0]})` : ''}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    mkdirSync(path.join(root, '.bench'), { recursive: true });
    writeFileSync(
      path.join(root, '.bench', 'market-sync.json'),
      `${JSON.stringify({ date: new Date().toISOString(), machine: machine(), ...report, runtimeErrors }, null, 2)}\n`,
    );
    if (report.targets.some((target) => !target.met)) process.exitCode = 2;
  } finally {
    await dynamo?.stop();
  }
};

/** `--prices`: its own DynamoDB Local and table, like `--market-sync`. */
const prices = async (argv: readonly string[]) => {
  const dynamo = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal({ port: await freePort() });
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? dynamo!.endpoint;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.AWS_REGION ??= 'local';
  const table = (process.env[TABLE_NAME_ENV] = `repricer-prices-bench-${Date.now()}`);
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
  // The API's handlers would print a metrics line per request among the figures.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const runtimeErrors: string[] = [];
  try {
    const { pricesSettings, runPricesBench } = await import('../tools/bench/prices.js');
    const settings = pricesSettings(argv);
    await createTable(createLocalDynamoClient(endpoint), table);
    say(`DynamoDB ${endpoint}, table ${table}`);
    const began = Date.now();
    const report = await runPricesBench(
      { endpoint, tableName: table, onError: (error) => runtimeErrors.push(error.message), runId: Date.now().toString(36) },
      settings,
    );
    const lines = [
      `Prices benchmark${settings.quick ? ' (quick)' : ''}, ${new Date().toISOString()}, ${machine()}, ${((Date.now() - began) / 60_000).toFixed(1)} minutes`,
      `Settings: ${settings.products} products, window ${settings.seconds} s per run, schedule ticks ${settings.tickSeconds} s apart, bot ticks ${settings.botTickSeconds} s apart, seed ${settings.seed}; circuit breaker off (${JSON.stringify(report.safety)})`,
      ...report.lines,
      `Runtime errors: ${runtimeErrors.length}${runtimeErrors.length ? ` (first: ${runtimeErrors[0]})` : ''}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    mkdirSync(path.join(root, '.bench'), { recursive: true });
    writeFileSync(
      path.join(root, '.bench', 'prices.json'),
      `${JSON.stringify({ date: new Date().toISOString(), machine: machine(), ...report, runtimeErrors }, null, 2)}\n`,
    );
    if (report.targets.some((target) => !target.met)) process.exitCode = 2;
  } finally {
    await dynamo?.stop();
  }
};

/** `--shared-pages`: its own DynamoDB Local and table, like `--market-sync`. */
const sharedPages = async (argv: readonly string[]) => {
  const dynamo = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal({ port: await freePort() });
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? dynamo!.endpoint;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.AWS_REGION ??= 'local';
  const table = (process.env[TABLE_NAME_ENV] = `repricer-shared-pages-bench-${Date.now()}`);
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
  const runtimeErrors: string[] = [];
  const loads: number[] = [os.loadavg()[0]!];
  const sampler = setInterval(() => loads.push(os.loadavg()[0]!), 15_000);
  sampler.unref();
  try {
    const { sharedPagesSettings, runSharedPagesBench } = await import('../tools/bench/shared-pages.js');
    const settings = sharedPagesSettings(argv);
    await createTable(createLocalDynamoClient(endpoint), table);
    say(`DynamoDB ${endpoint}, table ${table}`);
    const report = await runSharedPagesBench(
      { endpoint, tableName: table, onError: (error) => runtimeErrors.push(error.message), runId: Date.now().toString(36) },
      settings,
    );
    const load = loadAverage(loads);
    const lines = [
      `Shared pages benchmark${settings.quick ? ' (quick)' : ''}, ${new Date().toISOString()}, ${machine()}, load average ${load.min.toFixed(1)}-${load.max.toFixed(1)}`,
      ...report.lines,
      `Runtime errors: ${runtimeErrors.length}${runtimeErrors.length ? ` (first: ${runtimeErrors[0]})` : ''}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    mkdirSync(path.join(root, '.bench'), { recursive: true });
    writeFileSync(
      path.join(root, '.bench', 'shared-pages.json'),
      `${JSON.stringify({ date: new Date().toISOString(), machine: machine(), loadAverage: load, ...report, runtimeErrors }, null, 2)}\n`,
    );
  } finally {
    clearInterval(sampler);
    await dynamo?.stop();
  }
};

/** `--planner-sim`: the read planner against today's tiers, simulated (no table, no HTTP). */
const plannerSim = async (argv: readonly string[]) => {
  const { plannerSimSettings, runPlannerSim } = await import('../tools/bench/planner-sim.js');
  const settings = plannerSimSettings(argv);
  const began = Date.now();
  const report = runPlannerSim(settings);
  const lines = [
    `Read planner simulation${settings.quick ? ' (quick)' : ''}, ${new Date().toISOString()}, ${machine()}, ${((Date.now() - began) / 60_000).toFixed(1)} minutes, seed ${settings.seed}, ${settings.minutes} simulated minutes`,
    ...report.lines,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  mkdirSync(path.join(root, '.bench'), { recursive: true });
  writeFileSync(
    path.join(root, '.bench', 'planner-sim.json'),
    `${JSON.stringify({ date: new Date().toISOString(), machine: machine(), settings, ...report }, null, 2)}\n`,
  );
};

(process.argv[2] === '--market-sync'
  ? marketSync(process.argv.slice(3))
  : process.argv[2] === '--prices'
    ? prices(process.argv.slice(3))
    : process.argv[2] === '--shared-pages'
      ? sharedPages(process.argv.slice(3))
      : process.argv[2]
        ? rework(process.argv[2])
        : main()
).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
