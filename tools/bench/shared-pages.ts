/**
 * Many sellers end to end (`npm run bench -- --shared-pages`, docs/performance.md): the market
 * loop as deployed (schedule every minute -> read planner -> storefront reader, run by the local
 * event runtime) against the marketplace simulator on 127.0.0.1 with several seller accounts on
 * shared product lines, one tenant per account, for a few minutes of real time. From the
 * simulator's read log: reads per product line per minute (goal: one per look, however many
 * tenants sell the line), reads per second against the storefront's limit, the age of each
 * page's view; from the table's change stream: writes per look, shared and per tenant.
 * Loaded by bin/bench.ts once DynamoDB Local and the table are up.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { TAKEALOT_CONNECTOR_UID, TAKEALOT_SELLER_API_URL_ENV, TAKEALOT_STOREFRONT_URL_ENV } from '../../lambdas/marketplace/registry.js';
import { sealConnectionSecret } from '../../lambdas/marketplace/secrets.js';
import { saveConnection } from '../../lambdas/data/connections/connections.js';
import { connectedRecord } from '../../lambdas/domain/connections.js';
import { PAGE_WATCH_PREFIX, READ_BUDGET_PREFIX, TENANT_PREFIX } from '../../lambdas/data/table/keys.js';
import { importConnectorTypes } from '../admin/import.js';
import { createClientAccount } from '../admin/clients.js';
import { createRepricerFor, type RepricerOwner } from '../admin/repricers.js';
import { useLocalSecretsKey } from '../local/secrets-key.js';
import type { EventRuntime } from '../local/event-runtime.js';
import { createMarketSimulator, type MarketSimulator } from '../market/index.js';
import type { TrafficSummary } from '../market/traffic.js';
import { parseBenchFlags } from './bench-flags.js';
import { say, sleep, type MarketSyncContext } from './market-phase.js';

export interface SharedPagesSettings {
  readonly quick: boolean;
  readonly seed: number;
  /** Seller accounts of the simulator, one tenant each (the simulator allows 1 to 50). */
  readonly tenants: number;
  readonly products: number;
  /** The most accounts selling one product line. */
  readonly sellersPerProduct: number;
  /** Real minutes the loop runs once the connections are saved. */
  readonly minutes: number;
  /** The storefront's limit (the simulator's burst and refill per second); the service paces at one less. */
  readonly limit: number;
  /** Competitor bots per product. */
  readonly competitors: number;
  /** Percent of each tenant's products given an enabled repricer. */
  readonly repricedPercent: number;
}

const FULL: SharedPagesSettings = {
  quick: false,
  seed: 11,
  tenants: 50,
  products: 2_000,
  sellersPerProduct: 10,
  minutes: 6,
  limit: 10,
  competitors: 2,
  repricedPercent: 30,
};
const QUICK: SharedPagesSettings = { ...FULL, quick: true, tenants: 10, products: 300, minutes: 3 };

export const sharedPagesSettings = (argv: readonly string[]): SharedPagesSettings =>
  parseBenchFlags(argv, {
    full: FULL,
    quick: QUICK,
    numbers: {
      '--seed': 'seed',
      '--tenants': 'tenants',
      '--products': 'products',
      '--sellers-per-product': 'sellersPerProduct',
      '--minutes': 'minutes',
      '--limit': 'limit',
      '--competitors': 'competitors',
      '--repriced-percent': 'repricedPercent',
    },
    parts: [] as const,
  });

const MINUTE_MS = 60_000;
/** Ages are sampled from this long after the connections are saved: before, the first syncs and looks are under way. */
const WARM_UP_MS = 2 * MINUTE_MS;
const AGE_EVERY_MS = 10_000;
const REPRICER_RETRY_MS = 10_000;
/** The groups of pages by how many tenants sell them. */
const GROUPS = [
  { label: '1 tenant', min: 1, max: 1 },
  { label: '2-5 tenants', min: 2, max: 5 },
  { label: '6+ tenants', min: 6, max: Infinity },
] as const;

export interface LineFigures {
  readonly label: string;
  readonly lines: number;
  readonly readsPerLinePerMinute: { readonly mean: number; readonly max: number };
  /** (line, minute) pairs with more than one read, of all pairs, after the warm-up. */
  readonly pairsAboveOne: number;
  readonly pairs: number;
  /** Pairs without a read (a look not every minute: the planner spacing it out). */
  readonly pairsWithNone: number;
  /** Consecutive reads of one line less than 30 s apart (the planner's floor between looks; a blank page's re-read is one). */
  readonly readsUnder30s: number;
}

export interface AgeSplit {
  readonly lines: number;
  readonly samples: number;
  readonly p50Seconds: number;
  readonly p95Seconds: number;
  readonly maxSeconds: number;
  readonly neverRead: number;
}

export interface SharedPagesReport {
  readonly settings: SharedPagesSettings;
  readonly storefrontRequestsPerSecond: number;
  readonly seconds: number;
  readonly repricers: { readonly wanted: number; readonly created: number; readonly failed: number; readonly firstFailure?: string };
  readonly reads: number;
  readonly byTenants: readonly LineFigures[];
  readonly all: LineFigures;
  readonly readsPerSecond: { readonly mean: number; readonly max: number; readonly limit: number };
  readonly ages: { readonly repriced: AgeSplit; readonly notRepriced: AgeSplit };
  readonly writes: WriteFigures;
  readonly traffic: TrafficSummary;
  readonly runtimeFailures: number;
  /** Handler invocations of the runtime, by function: calls and records handed to them. */
  readonly invocations: Readonly<Record<string, { calls: number; records: number }>>;
  readonly lines: readonly string[];
}

export interface WriteFigures {
  /** Over the whole run, and after the warm-up alone (the initial imports and repricers left out). */
  readonly whole: WritesPerLook;
  readonly afterWarmUp: WritesPerLook;
}

export interface WritesPerLook {
  readonly reads: number;
  /** Reads times the tenants watching each page read. */
  readonly tenantLooks: number;
  readonly shared: number;
  readonly tenant: number;
  readonly other: number;
  readonly sharedPerRead: number;
  readonly tenantPerTenantLook: number;
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;

/** Stream records counted by key prefix, each with its arrival time (items written, one record each). */
class StreamCounter {
  readonly records: { at: number; kind: 'shared' | 'tenant' | 'other' }[] = [];
  readonly onRecords = (records: readonly DynamoDBRecord[]): void => {
    const at = Date.now();
    for (const record of records) {
      const pk = record.dynamodb?.Keys?.pk?.S ?? '';
      const kind = pk.startsWith(PAGE_WATCH_PREFIX) || pk.startsWith(READ_BUDGET_PREFIX) ? 'shared' : pk.startsWith(TENANT_PREFIX) ? 'tenant' : 'other';
      this.records.push({ at, kind });
    }
  };
  count(from: number, to: number) {
    const tally = { shared: 0, tenant: 0, other: 0 };
    for (const record of this.records) if (record.at >= from && record.at <= to) tally[record.kind] += 1;
    return tally;
  }
}

interface Tenant {
  readonly owner: RepricerOwner;
  /** Product codes (SKUs) to give a repricer, and the product lines they are on. */
  readonly pending: { code: string; price: number; plid: string }[];
}

/** Each account's products: the first account sells every product, the others those the simulator gave them. */
const accountProducts = (market: MarketSimulator): Map<number, { code: string; price: number; plid: string }[]> => {
  const byAccount = new Map<number, { code: string; price: number; plid: string }[]>();
  const add = (account: number, entry: { code: string; price: number; plid: string }) => {
    const list = byAccount.get(account) ?? [];
    list.push(entry);
    byAccount.set(account, list);
  };
  for (const product of market.simulation.market.products) {
    const plid = String(product.plid);
    add(0, { code: product.own.sku, price: product.own.selling_price, plid });
    for (const { account, offer } of product.accounts ?? []) add(account, { code: offer.sku, price: offer.selling_price, plid });
  }
  return byAccount;
};

const lineFigures = (label: string, plids: readonly string[], reads: ReadonlyMap<string, readonly number[]>, from: number, to: number): LineFigures => {
  const minutes = Math.max(1, Math.floor((to - from) / MINUTE_MS));
  let above = 0;
  let none = 0;
  let max = 0;
  let total = 0;
  let close = 0;
  for (const plid of plids) {
    const times = [...(reads.get(plid) ?? [])].filter((t) => t >= from && t <= to).sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) if (times[i]! - times[i - 1]! < 30_000) close += 1;
    const counts = new Array<number>(minutes).fill(0);
    for (const t of reads.get(plid) ?? []) {
      const minute = Math.floor((t - from) / MINUTE_MS);
      if (minute >= 0 && minute < minutes) counts[minute]! += 1;
    }
    for (const c of counts) {
      total += c;
      max = Math.max(max, c);
      if (c > 1) above += 1;
      if (c === 0) none += 1;
    }
  }
  const pairs = plids.length * minutes;
  return {
    label,
    lines: plids.length,
    readsPerLinePerMinute: { mean: pairs ? total / pairs : NaN, max },
    pairsAboveOne: above,
    pairs,
    pairsWithNone: none,
    readsUnder30s: close,
  };
};

const ageSplit = (plids: readonly string[], reads: ReadonlyMap<string, readonly number[]>, readsFrom: number, from: number, to: number): AgeSplit => {
  const ages: number[] = [];
  let neverRead = 0;
  for (const plid of plids) {
    const times = [...(reads.get(plid) ?? [])].filter((t) => t >= readsFrom && t <= to).sort((a, b) => a - b);
    if (times.length === 0) neverRead += 1;
    let index = -1;
    for (let moment = from; moment <= to; moment += AGE_EVERY_MS) {
      while (index + 1 < times.length && times[index + 1]! <= moment) index += 1;
      ages.push(moment - (index >= 0 ? times[index]! : readsFrom));
    }
  }
  ages.sort((a, b) => a - b);
  return {
    lines: plids.length,
    samples: ages.length,
    p50Seconds: quantile(ages, 0.5) / 1000,
    p95Seconds: quantile(ages, 0.95) / 1000,
    maxSeconds: (ages.at(-1) ?? NaN) / 1000,
    neverRead,
  };
};

export const runSharedPagesBench = async (context: MarketSyncContext, settings: SharedPagesSettings): Promise<SharedPagesReport> => {
  useLocalSecretsKey();
  const rate = Math.max(1, settings.limit - 1);
  const sellersPerProduct = Math.min(settings.sellersPerProduct, settings.tenants);
  say(
    `== ${settings.tenants} tenants, ${settings.products} product lines, up to ${sellersPerProduct} tenants a line, storefront limit ${settings.limit}/s (paced at ${rate}/s), ${settings.minutes} minutes`,
  );
  const market = await createMarketSimulator({
    host: '127.0.0.1',
    port: 0,
    seed: settings.seed,
    products: settings.products,
    competitors: settings.competitors,
    sellers: settings.tenants,
    sellersPerProduct,
    // Bots move on their own (system clock) while the loop runs, as in the market-sync bench's freshness part.
    tickIntervalMs: 5_000,
    storefrontRateLimit: { capacity: settings.limit, refillPerSecond: settings.limit },
  });
  process.env[TAKEALOT_SELLER_API_URL_ENV] = market.sellerApiUrl;
  process.env[TAKEALOT_STOREFRONT_URL_ENV] = market.storefrontUrl;
  const stream = new StreamCounter();
  const invocations: Record<string, { calls: number; records: number }> = {};
  const { startEventRuntime } = await import('../local/event-runtime.js');
  let runtime: EventRuntime | undefined;
  try {
    // The runtime's ticks come every tickMs from its start: started at a minute's start, they come
    // at the start of each minute, as the stack's schedule does.
    await sleep(MINUTE_MS - (Date.now() % MINUTE_MS) + 1_000);
    runtime = await startEventRuntime({
      endpoint: context.endpoint,
      tableName: context.tableName,
      onError: context.onError,
      onRecords: stream.onRecords,
      onInvoke: (functionName, records) => {
        const entry = (invocations[functionName] ??= { calls: 0, records: 0 });
        entry.calls += 1;
        entry.records += records;
      },
      market: { tickMs: MINUTE_MS, storefrontRequestsPerSecond: rate },
    });
    await importConnectorTypes([
      {
        type: 'connector_type',
        data: { uid: TAKEALOT_CONNECTOR_UID, name: 'Takealot', logo: 'https://logos.example/takealot.png', website: 'https://www.takealot.com' },
      },
    ]);
    const products = accountProducts(market);
    const tenants: Tenant[] = [];
    for (const [n, seller] of market.sellers.entries()) {
      const account = await createClientAccount({ username: `shared-${n}-${context.runId}`, sellerId: seller.sellerId, connector: TAKEALOT_CONNECTOR_UID });
      // As PUT /v1/connections/takealot stores it: suggest mode, the account's own key and seller id.
      const record = connectedRecord(
        TAKEALOT_CONNECTOR_UID,
        { apiKey: seller.apiKey, webhookSecretSet: false, mode: 'suggest', sellerId: seller.sellerId },
        undefined,
        new Date().toISOString(),
      );
      const sealedKey = await sealConnectionSecret('marketplace-key', account.clientId, TAKEALOT_CONNECTOR_UID, seller.apiKey);
      const saved = await saveConnection(account.clientId, record, { sealedKey }, undefined);
      if (!saved.saved) throw new Error(`The connection of tenant ${n} could not be saved`);
      // A fixed share of the tenant's products, spread over the catalogue (deterministic: every product whose turn comes).
      const own = products.get(n) ?? [];
      const pending = own.filter((_, i) => ((i + n) * 37) % 100 < settings.repricedPercent);
      tenants.push({ owner: { clientId: account.clientId, defaultConnector: account.defaultConnector }, pending });
    }
    const started = Date.now();
    const until = started + settings.minutes * MINUTE_MS;
    // The first tick now rather than a minute on: every tenant's first sync starts at once.
    const firstTick = runtime.tickMarket().catch((error: unknown) => context.onError(error instanceof Error ? error : new Error(String(error))));
    const repricedLines = new Set(tenants.flatMap((t) => t.pending.map((p) => p.plid)));
    const wanted = tenants.reduce((sum, t) => sum + t.pending.length, 0);
    let created = 0;
    let failed = 0;
    let firstFailure: string | undefined;
    say(`  connections saved; ${wanted} repricers to create as the tenants' products arrive`);
    // Repricers are created once their products have been imported by the first syncs, retried every 10 s (bounded by the run).
    let nextReport = started + MINUTE_MS;
    for (let round = 0; Date.now() < until && round < 10_000; round++) {
      const roundStarted = Date.now();
      for (const tenant of tenants) {
        const left: Tenant['pending'] = [];
        for (const entry of tenant.pending) {
          if (Date.now() >= until) {
            left.push(entry);
            continue;
          }
          try {
            await createRepricerFor(tenant.owner, {
              product_code: entry.code,
              preferred_price: entry.price,
              preferred_profit: 0,
              min_profit: 0,
              buybox_approach: 'cheapest',
              repricer_approach: 'fixed',
              enabled: true,
            });
            created += 1;
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            if (message.startsWith('No product')) left.push(entry);
            else {
              failed += 1;
              firstFailure ??= message;
            }
          }
        }
        tenant.pending.splice(0, tenant.pending.length, ...left);
      }
      if (Date.now() >= nextReport) {
        nextReport = Date.now() + MINUTE_MS;
        say(
          `  ${((Date.now() - started) / 1000).toFixed(0)} s: ${market.control.traffic().storefront_reads} pages read, ${created} of ${wanted} repricers created`,
        );
      }
      await sleep(Math.min(until, roundStarted + REPRICER_RETRY_MS) - Date.now());
    }
    await sleep(until - Date.now());
    const ended = Date.now();
    say(`  ${((ended - started) / 1000).toFixed(0)} s: stopping`);
    await firstTick;
    const traffic = market.control.traffic();
    const reads = new Map(Object.entries(market.control.reads().products));
    await runtime.stop();
    const runtimeFailures = runtime.failures().length;
    runtime = undefined;

    // Tenants per product line (variants of a line count the line once).
    const tenantsOf = new Map<string, Set<number>>();
    for (const [account, list] of products) for (const { plid } of list) tenantsOf.set(plid, (tenantsOf.get(plid) ?? new Set()).add(account));
    const plids = [...tenantsOf.keys()];
    const from = started + WARM_UP_MS < ended ? started + WARM_UP_MS : started;
    const byTenants = GROUPS.map((group) =>
      lineFigures(
        group.label,
        plids.filter((plid) => {
          const n = tenantsOf.get(plid)!.size;
          return n >= group.min && n <= group.max;
        }),
        reads,
        from,
        ended,
      ),
    );
    const all = lineFigures('all', plids, reads, from, ended);

    // Reads per second over the whole run.
    const seconds = Math.max(1, Math.floor((ended - started) / 1000));
    const perSecond = new Array<number>(seconds).fill(0);
    let readsInRun = 0;
    for (const times of reads.values())
      for (const t of times) {
        const s = Math.floor((t - started) / 1000);
        if (s >= 0 && s < seconds) {
          perSecond[s]! += 1;
          readsInRun += 1;
        }
      }

    const ages = {
      repriced: ageSplit(
        plids.filter((p) => repricedLines.has(p)),
        reads,
        started,
        from,
        ended,
      ),
      notRepriced: ageSplit(
        plids.filter((p) => !repricedLines.has(p)),
        reads,
        started,
        from,
        ended,
      ),
    };

    const writesBetween = (a: number, b: number): WritesPerLook => {
      let count = 0;
      let tenantLooks = 0;
      for (const [plid, times] of reads)
        for (const t of times)
          if (t >= a && t <= b) {
            count += 1;
            tenantLooks += tenantsOf.get(plid)?.size ?? 0;
          }
      const tally = stream.count(a, b);
      return {
        reads: count,
        tenantLooks,
        ...tally,
        sharedPerRead: count ? tally.shared / count : NaN,
        tenantPerTenantLook: tenantLooks ? tally.tenant / tenantLooks : NaN,
      };
    };
    const writes = { whole: writesBetween(started, ended), afterWarmUp: writesBetween(from, ended) };

    const report = {
      settings: { ...settings, sellersPerProduct },
      storefrontRequestsPerSecond: rate,
      seconds: (ended - started) / 1000,
      repricers: { wanted, created, failed, ...(firstFailure ? { firstFailure } : {}) },
      reads: readsInRun,
      byTenants,
      all,
      readsPerSecond: { mean: readsInRun / seconds, max: Math.max(...perSecond), limit: settings.limit },
      ages,
      writes,
      traffic,
      runtimeFailures,
      invocations,
    };
    return { ...report, lines: reportLines(report) };
  } finally {
    await runtime?.stop();
    await market.stop();
  }
};

const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

export const reportLines = (report: Omit<SharedPagesReport, 'lines'>): string[] => {
  const { settings, ages, writes } = report;
  const lines = [
    `Settings: ${settings.tenants} tenants (one per seller account), ${settings.products} product lines, up to ${settings.sellersPerProduct} tenants a line, ${settings.competitors} competitors a line, storefront limit ${settings.limit}/s paced at ${report.storefrontRequestsPerSecond}/s, schedule every 60 s, ${fixed(report.seconds / 60, 1)} minutes, seed ${settings.seed}`,
    `Repricers (enabled, ${settings.repricedPercent} % of each tenant's products): ${report.repricers.created} of ${report.repricers.wanted} created${report.repricers.failed ? `, ${report.repricers.failed} failed (${report.repricers.firstFailure})` : ''}`,
    `Reads per product line per minute, after the first 2 minutes (goal: at most 1, whatever the number of tenants):`,
  ];
  for (const f of [...report.byTenants, report.all])
    lines.push(
      `  ${f.label.padEnd(12)} ${String(f.lines).padStart(5)} lines: mean ${fixed(f.readsPerLinePerMinute.mean)}, max ${f.readsPerLinePerMinute.max}; (line, minute) pairs with more than one read ${f.pairsAboveOne} of ${f.pairs} (${fixed((100 * f.pairsAboveOne) / Math.max(1, f.pairs), 1)} %), with none ${f.pairsWithNone}; reads under 30 s after the last ${f.readsUnder30s}`,
    );
  lines.push(
    `Storefront reads: ${report.reads} in the run; per second mean ${fixed(report.readsPerSecond.mean)}, max in any second ${report.readsPerSecond.max} (limit ${report.readsPerSecond.limit}); refused above the limit ${report.traffic.politeness.storefront.refused}`,
  );
  for (const [label, a] of [
    ['repriced', ages.repriced],
    ['not repriced', ages.notRepriced],
  ] as const)
    lines.push(
      `View age, ${label} lines (${a.lines}, sampled every 10 s after the first 2 minutes): p50 ${fixed(a.p50Seconds, 0)} s, p95 ${fixed(a.p95Seconds, 0)} s, max ${fixed(a.maxSeconds, 0)} s; never read ${a.neverRead}`,
    );
  for (const [label, w] of [
    ['whole run', writes.whole],
    ['after the first 2 minutes', writes.afterWarmUp],
  ] as const)
    lines.push(
      `Items written (stream records), ${label}: shared (PAGE#, BUDGET#) ${w.shared} = ${fixed(w.sharedPerRead)} per page read (${w.reads}); tenant (T#) ${w.tenant} = ${fixed(w.tenantPerTenantLook)} per watching tenant per read (${w.tenantLooks}); other ${w.other}`,
    );
  lines.push(
    `Handler invocations (calls/records): ${Object.entries(report.invocations)
      .map(([name, { calls, records }]) => `${name} ${calls}/${records}`)
      .join(', ')}`,
  );
  lines.push(`Runtime dead letters and failed stream batches: ${report.runtimeFailures}`);
  return lines;
};
