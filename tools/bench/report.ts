import type { BundleFigures } from './bundles.js';
import { withinReadTarget, type ReadMeasurement } from './list-reads.js';
import type { RepricingFigures, RepricingSettings } from './repricing.js';
import type { LagFigures, LoadFigures, OperationFigures, ThroughputFigures, TotalCheck } from './scenarios.js';
import { ITEM_KINDS, KIND_LABELS, type WriteTally } from './write-meter.js';
import { OLD_LAYOUT, WORKLOAD, type WorkloadCost, type WorkloadInputs } from './workload.js';

/** The benchmark's figures as markdown: docs/bench/report.md and what `npm run bench` prints. */
export interface BenchSummary {
  readonly date: string;
  readonly node: string;
  readonly machine: string;
  readonly loadAverage: { readonly min: number; readonly mean: number; readonly max: number };
  readonly minutes: number;
  readonly table: { readonly name: string; readonly reused: boolean };
  readonly settings: {
    readonly repetitions: number;
    readonly changesPerKind: number;
    readonly bulk: number;
    readonly repricersMeasured: number;
    readonly throughputOffers: number;
    readonly lagChanges: number;
    readonly lagRate: number;
  };
  readonly failures: { readonly maintainer: number; readonly runtimeErrors: readonly string[]; readonly strayStreamRecords: number };
  readonly sizes: readonly number[];
  readonly loads: readonly LoadFigures[];
  readonly checks: readonly TotalCheck[];
  readonly operations: readonly OperationFigures[];
  readonly repricerGets: readonly { readonly size: number; readonly readUnits: number }[];
  readonly lag: readonly LagFigures[];
  readonly offerReads: readonly ReadMeasurement[];
  readonly repricerReads: readonly (ReadMeasurement & { readonly repricers: number })[];
  readonly throughput: readonly ThroughputFigures[];
  readonly workload?: {
    readonly size: number;
    readonly inputs: WorkloadInputs;
    readonly mixed: WorkloadCost;
    readonly allPriceChanges: WorkloadCost;
    readonly allWorstChanges: WorkloadCost;
    readonly oldLow: WorkloadCost;
    readonly oldHigh: WorkloadCost;
  };
  readonly bundles: readonly BundleFigures[];
  readonly repricing?: readonly RepricingFigures[];
  /** Set when the repricing figures come from a run of their own (`BENCH_ONLY=repricing`), not from the run above. */
  readonly repricingRun?: {
    readonly date: string;
    readonly node: string;
    readonly machine: string;
    readonly loadAverage: { readonly min: number; readonly mean: number; readonly max: number };
    readonly settings: RepricingSettings;
    readonly failures: { readonly evaluator: number; readonly runtimeErrors: readonly string[] };
  };
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const money = (n: number) => `$${n.toFixed(n < 0.1 ? 4 : 3)}`;
const mean = (values: readonly number[]) => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);

const operation = (s: Pick<BenchSummary, 'operations'>, size: number, name: string) =>
  s.operations.find((o) => o.size === size && (o.operation === name || o.operation.startsWith(name)));

/** The per-operation figures the workload is priced from, at `size`; undefined when one is missing. */
export const workloadInputs = (s: Pick<BenchSummary, 'operations' | 'offerReads' | 'repricerReads'>, size: number): WorkloadInputs | undefined => {
  const units = (o: OperationFigures | undefined) => (o ? { write: o.writes.total, read: o.readUnits } : undefined);
  const price = units(operation(s, size, 'single change: realistic'));
  const worst = units(operation(s, size, 'single change: worst'));
  const flags = units(operation(s, size, 'single change: flags'));
  const bulk = units(operation(s, size, 'bulk sync'));
  const create = units(operation(s, size, 'repricer create'));
  const update = units(operation(s, size, 'repricer update'));
  const lists = s.offerReads.filter((m) => m.size === size);
  const repricerLists = s.repricerReads.filter((m) => m.size === size);
  if (!price || !worst || !flags || !bulk || !create || !update || lists.length === 0 || repricerLists.length === 0) return undefined;
  return {
    singlePriceChange: price,
    singleWorstChange: worst,
    singleFlagsChange: flags,
    bulkChange: bulk,
    listRequest: { write: 0, read: mean(lists.map((m) => m.awsUnits)) },
    repricerCreate: create,
    repricerUpdate: update,
    repricerRead: { write: 0, read: mean(repricerLists.map((m) => m.awsUnits)) },
  };
};

const OLD_PER_OPERATION: Record<string, string> = {
  'new offer': `${OLD_LAYOUT.newOfferWriteUnits[0]}-${OLD_LAYOUT.newOfferWriteUnits[1]}`,
  'single change': `${OLD_LAYOUT.changeWriteUnits[0]}-${OLD_LAYOUT.changeWriteUnits[1]}`,
  'bulk sync': `${OLD_LAYOUT.changeWriteUnits[0]}-${OLD_LAYOUT.changeWriteUnits[1]}`,
  'repricer create': String(OLD_LAYOUT.repricerWriteUnits),
};
const oldFigure = (name: string) => Object.entries(OLD_PER_OPERATION).find(([prefix]) => name.startsWith(prefix))?.[1] ?? '-';

interface Row {
  readonly size: number;
  readonly name: string;
  readonly writes: WriteTally;
  readonly readUnits: number;
  readonly range?: string;
  readonly returnedMs?: number;
  readonly listedMs?: number;
}

const rowsOf = (s: BenchSummary): Row[] =>
  s.sizes.flatMap((size) => {
    const load = s.loads.find((l) => l.size === size);
    const rows: Row[] = load
      ? [{ size, name: `new offer (bulk import of ${int(size)}${load.resumed ? ', resumed' : ''})`, writes: load.perOffer, readUnits: load.readUnitsPerOffer }]
      : [];
    for (const o of s.operations.filter((x) => x.size === size)) {
      rows.push({
        size,
        name: o.operation.startsWith('bulk') ? `${o.operation} (per change)` : o.operation,
        writes: o.writes,
        readUnits: o.readUnits,
        ...(o.minWriteUnits === undefined ? {} : { range: `${fmt(o.minWriteUnits, 0)}-${fmt(o.maxWriteUnits!, 0)}` }),
        ...(o.operation.startsWith('bulk') ? {} : { returnedMs: o.operationMs, listedMs: o.settledMs }),
      });
    }
    return rows;
  });

export const buildReport = (s: BenchSummary): string[] => {
  const lines: string[] = [];
  const out = (line = '') => lines.push(line);
  const largest = Math.max(...s.sizes);
  const smallest = Math.min(...s.sizes);
  out();
  out(
    `Node ${s.node}, ${s.machine} (1-minute load average over the run ${fmt(s.loadAverage.min)}-${fmt(s.loadAverage.max)}, mean ${fmt(s.loadAverage.mean)}), DynamoDB Local; ` +
      `sizes ${s.sizes.map(int).join(', ')} offers; ${fmt(s.minutes, 0)} minutes` +
      (s.table.reused ? ` (table ${s.table.name} reused).` : '.'),
  );

  // 1. Write units.
  const rows = rowsOf(s);
  out('\n## Write units per operation\n');
  out("Counted from every item written (each record of the table's change stream, priced with AWS's model: 1 unit per started KB for the");
  out("table and for each GSI entry, a moved index key a delete and a put, writes of TransactWriteItems twice), the list maintainer's");
  out('included. Read units (AWS model) are those the operation and the maintainer read. "ms": until the import (or API call) returned /');
  out('until the change was listed and counted (median; each single operation measured alone, stream settled before and after).\n');
  out('| offers | operation | write units | table | indexes | range | old layout | read units | ms returned / listed |');
  out('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    out(
      `| ${int(r.size)} | ${r.name} | ${fmt(r.writes.total)} | ${fmt(r.writes.table)} | ${fmt(r.writes.indexes)} | ${r.range ?? ''} | ${oldFigure(r.name)} | ${fmt(r.readUnits)} | ${r.returnedMs === undefined ? '' : `${fmt(r.returnedMs, 0)} / ${fmt(r.listedMs!, 0)}`} |`,
    );
  }
  out('\nBy item kind (write units, and in brackets item writes, per operation):\n');
  const kinds = ITEM_KINDS.filter((kind) => rows.some((r) => (r.writes.byKind[kind]?.writes ?? 0) > 0));
  out(`| offers | operation | ${kinds.map((k) => KIND_LABELS[k]).join(' | ')} |`);
  out(`|---:|---|${kinds.map(() => '---:').join('|')}|`);
  for (const r of rows) {
    out(
      `| ${int(r.size)} | ${r.name} | ${kinds
        .map((k) => {
          const u = r.writes.byKind[k];
          return u && u.writes > 0 ? `${fmt(u.table + u.indexes)} (${fmt(u.writes, u.writes < 10 ? 2 : 1)})` : '';
        })
        .join(' | ')} |`,
    );
  }

  // 2. Throughput.
  out('\n## Import throughput\n');
  out('Offers of one new tenant imported through the import code; "written": until the import calls returned; "listed": until the');
  out('change stream was settled (every offer listed and counted). Previous layout, one writer, synchronous: 88-106 offers/s.\n');
  out(
    '| writers | offers | written s | offers/s written | listed s | offers/s listed | failed imports | maintainer failures | totals right | write units/offer |',
  );
  out('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const t of s.throughput) {
    const right = t.checks.filter((c) => c.got === c.expected).length;
    out(
      `| ${t.writers} | ${int(t.offers)} | ${fmt(t.writerSeconds)} | ${fmt(t.writerOffersPerSecond, 0)} | ${fmt(t.settledSeconds)} | ${fmt(t.settledOffersPerSecond, 0)} | ${t.failedImports} | ${t.maintainerFailures} | ${right} of ${t.checks.length} | ${fmt(t.perOffer.total)} |`,
    );
  }
  if (s.loads.length > 0) {
    out('\nTenant loads (one writer):\n');
    out('| offers | written s | offers/s written | listed s | offers/s listed | loaded |');
    out('|---:|---:|---:|---:|---:|---|');
    for (const l of s.loads) {
      out(
        `| ${int(l.size)} | ${fmt(l.writerSeconds)} | ${fmt(l.writerOffersPerSecond, 0)} | ${fmt(l.settledSeconds)} | ${fmt(l.settledOffersPerSecond, 0)} | ${l.date.slice(0, 10)}${l.resumed ? ' (resumed)' : ''} |`,
      );
    }
  }

  // 3. Workload.
  if (s.workload) {
    const w = s.workload;
    out(`\n## The workload's cost per hour (docs/design.md, "Data"), from the figures at ${int(w.size)} offers\n`);
    out(
      `${int(WORKLOAD.singleChanges + WORKLOAD.bulkChanges)} offer changes (half one at a time: half of those price and competitor moves, half flag changes; half in bulk syncs of ${int(WORKLOAD.bulkSize)}), ` +
        `${int(WORKLOAD.listRequests)} list requests of 100 offers (mean of the measured queries), ${WORKLOAD.repricerWrites} repricer writes (half creates, half updates), ` +
        `${int(WORKLOAD.repricerReads)} repricer reads (priced as list pages); $0.625 per million write units, $0.125 per million read units. ` +
        `Old layout: ${OLD_LAYOUT.changeWriteUnits.join('-')} write units per change, ${OLD_LAYOUT.repricerWriteUnits} per repricer write, ${OLD_LAYOUT.listReadUnits} read units per list or repricer read (its write path's reads unknown, left out).\n`,
    );
    out('| | count | write units | read units | cost | old write units | old read units | old cost |');
    out('|---|---:|---:|---:|---:|---:|---:|---:|');
    w.mixed.lines.forEach((l, i) => {
      const o = w.oldHigh.lines[i]!;
      out(
        `| ${l.what} | ${int(l.count)} | ${int(l.writeUnits)} | ${int(l.readUnits)} | ${money(l.dollars)} | ${int(o.writeUnits)} | ${int(o.readUnits)} | ${money(o.dollars)} |`,
      );
    });
    out(
      `| **total** | | ${int(w.mixed.writeUnits)} | ${int(w.mixed.readUnits)} | **${money(w.mixed.dollars)}** | ${int(w.oldHigh.writeUnits)} | ${int(w.oldHigh.readUnits)} | **${money(w.oldHigh.dollars)}** |`,
    );
    out('\n| variant | cost per hour | old (125 / 130 per change) | ratio | target |');
    out('|---|---:|---:|---:|---|');
    for (const [name, cost] of [
      ['as above', w.mixed],
      ['every single change a price and competitor move', w.allPriceChanges],
      ['every single change the worst case', w.allWorstChanges],
    ] as const) {
      const ratio = cost.dollars / w.oldLow.dollars;
      out(
        `| ${name} | ${money(cost.dollars)} | ${money(w.oldLow.dollars)} / ${money(w.oldHigh.dollars)} | ${fmt(cost.dollars / w.oldHigh.dollars, 3)}-${fmt(ratio, 3)} | <= 0.25: ${ratio <= 0.25 ? 'met' : 'MISSED'} |`,
      );
    }
  }

  // 4. Offer reads.
  /** `bySize`: whether the sizes differ in what is listed (offers do; repricers are as many in each tenant but the smallest). */
  const readSection = (title: string, measurements: readonly ReadMeasurement[], note: string, bySize = true) => {
    if (measurements.length === 0) return;
    out(`\n## ${title}\n`);
    out(note);
    out('"AWS RCU": AWS\'s read model applied to every call (a filtered Query also for what its filter dropped); "Local": what DynamoDB Local');
    out('reported for the calls that ask. "Ideal": one eventually consistent Query returning just the page\'s items as stored (compressed');
    out(`listings). Target: AWS RCU <= 2.5 x ideal + 4, at most 3 round trips. Latency: ${s.settings.repetitions} repetitions.\n`);
    out('| offers | requests | round trips (max) | AWS RCU per request | ideal RCU | worst AWS - target | within target | median ms (range) | p95 ms (max) |');
    out('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const size of s.sizes) {
      const ms = measurements.filter((m) => m.size === size);
      if (ms.length === 0) continue;
      const range = (f: (m: ReadMeasurement) => number, d = 1) => `${fmt(Math.min(...ms.map(f)), d)}-${fmt(Math.max(...ms.map(f)), d)}`;
      const medians = ms.map((m) => m.medianMs).sort((a, b) => a - b);
      out(
        `| ${int(size)} | ${ms.length} | ${Math.max(...ms.map((m) => m.roundTrips))} | ${range((m) => m.awsUnits)} | ${range((m) => m.idealUnits)} | ${fmt(Math.max(...ms.map((m) => m.awsUnits - (2.5 * m.idealUnits + 4))))} | ${ms.filter(withinReadTarget).length} of ${ms.length} | ${fmt(medians[Math.floor(medians.length / 2)]!)} (${range((m) => m.medianMs)}) | ${fmt(Math.max(...ms.map((m) => m.p95Ms)))} |`,
      );
    }
    const top = measurements.filter((m) => m.size === largest);
    if (top.length > 0) {
      out(
        `\nAt ${int(largest)}: AWS RCU / median ms at \`_start\` = start, middle, end;` +
          (bySize && smallest !== largest ? ` the median's ratio to ${int(smallest)} (worst position; target <= 1.5);` : '') +
          ' last page / first page (target <= 1.5):\n',
      );
      const ratioColumn = bySize && smallest !== largest;
      out(`| query | start | middle | end | ${ratioColumn ? `${int(largest)}/${int(smallest)} | ` : ''}last/first |`);
      out(`|---|---|---|---|${ratioColumn ? '---:|' : ''}---:|`);
      for (const query of [...new Set(top.map((m) => m.query))]) {
        const at = (p: string, size = largest) => measurements.find((m) => m.size === size && m.query === query && m.position === p);
        const cell = (p: string) => {
          const m = at(p);
          return m ? `${fmt(m.awsUnits)} / ${fmt(m.medianMs)}` : '';
        };
        const ratios = ['start', 'middle', 'end'].flatMap((p) => {
          const big = at(p);
          const small = at(p, smallest);
          return big && small ? [big.medianMs / small.medianMs] : [];
        });
        const first = at('start');
        const last = at('end');
        const ratio = ratioColumn ? `${ratios.length ? fmt(Math.max(...ratios), 2) : ''} | ` : '';
        out(`| ${query} | ${cell('start')} | ${cell('middle')} | ${cell('end')} | ${ratio}${first && last ? fmt(last.medianMs / first.medianMs, 2) : ''} |`);
      }
    }
    out('\nEvery request:\n');
    out('| offers | query | start | total | items | round trips | calls | AWS RCU | Local RCU | ideal | within target | median ms | p95 ms |');
    out('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|:-:|---:|---:|');
    for (const m of measurements) {
      out(
        `| ${int(m.size)} | ${m.query} | ${m.position} (${m.start}) | ${m.total} | ${m.pageItems} | ${m.roundTrips} | ${m.calls} | ${fmt(m.awsUnits)} | ${fmt(m.localUnits)} | ${fmt(m.idealUnits)} | ${withinReadTarget(m) ? 'yes' : 'NO'} | ${fmt(m.medianMs)} | ${fmt(m.p95Ms)} |`,
      );
    }
  };
  readSection('GET /v1/offers (page size 100)', s.offerReads, "The data layer's listOffers with the query the handler plans from the parameters.");
  const repricerCounts = [...new Set(s.repricerReads.map((m) => `${int(m.size)} offers: ${m.repricers} repricers`))].join(', ');
  readSection(
    'GET /v1/repricers (page size 100)',
    s.repricerReads,
    `The data layer's listRepricers (${repricerCounts}). A GET of one repricer (consistent GetItem): ${s.repricerGets.map((g) => fmt(g.readUnits)).join(', ')} RCU.`,
    false,
  );

  // 5. Lag.
  if (s.lag.length > 0) {
    out('\n## Change-stream lag\n');
    out(`Single changes (price and competitors) imported at ${s.settings.lagRate} a second; lag: from the write of the canonical offer to the write of its`);
    out('listing, which the maintainer writes after the counts (so the change is then listed and counted). Local runtime: stream polled every');
    out("50 ms with a 50 ms batching window, forwarder, FIFO queue, maintainer, all in this process; on AWS the stream's own delivery adds to it.\n");
    out('| offers | changes | measured | p50 ms | p99 ms | max ms | import call p50 ms |');
    out('|---:|---:|---:|---:|---:|---:|---:|');
    for (const l of s.lag)
      out(`| ${int(l.size)} | ${l.changes} | ${l.measured} | ${fmt(l.p50Ms, 0)} | ${fmt(l.p99Ms, 0)} | ${fmt(l.maxMs, 0)} | ${fmt(l.importP50Ms, 0)} |`);
  }

  // 6. Repricing.
  if (s.repricing && s.repricing.length > 0) {
    const run = s.repricingRun;
    out('\n## Repricing evaluations\n');
    if (run) {
      out(
        `Measured on ${run.date.slice(0, 10)} by a run of their own (\`BENCH_ONLY=repricing\`): Node ${run.node}, ${run.machine} (1-minute load average ${fmt(run.loadAverage.min)}-${fmt(run.loadAverage.max)}, ` +
          `mean ${fmt(run.loadAverage.mean)}); evaluator messages dead-lettered: ${run.failures.evaluator}, runtime errors: ${run.failures.runtimeErrors.length}.`,
      );
    }
    out("One product per row's competitor count with the client's own offer and that many other sellers' buyable offers, and an enabled repricer.");
    out("\"evaluation\": the evaluator's reads of one evaluation (one consistent Query of the product's partition; the connector's price step is");
    out('cached a minute per container), measured alone. "decision": per price change, the evaluator\'s writes (price change, decision state,');
    out("id counter) and the list maintainer's (the price change's two listings and their rank nodes), from single competitor price changes");
    out('imported one at a time; "offer change": that change\'s own writes (offer, listing, nodes). "decided": from the competitor offer\'s write');
    out('to its price change\'s. "evaluations/s": evaluations with nothing new to decide (read and decide), one at a time and 8 at a time;');
    out('"bulk": one import changing every product\'s lowest competitor, until decided and listed.\n');
    out(
      '| competitors | evaluation RU | items read | KB read | decision WU (evaluator + listings) | offer change WU | path RU | decisions | decided p50 / p99 ms | evaluations/s (p50 ms) | with 8 | bulk decisions/s |',
    );
    out('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of s.repricing) {
      out(
        `| ${r.competitors} | ${fmt(r.evaluation.readUnits)} | ${r.evaluation.itemsRead} | ${fmt(r.evaluation.bytesRead / 1024)} | ${fmt(r.evaluatorWrites.total + r.listingWrites.total)} (${fmt(r.evaluatorWrites.total)} + ${fmt(r.listingWrites.total)}) | ` +
          `${fmt(r.offerWrites.total)} | ${fmt(r.pathReadUnits)} | ${r.decisions} of ${r.products} | ${fmt(r.decidedMs.p50, 0)} / ${fmt(r.decidedMs.p99, 0)} | ${fmt(r.serial.perSecond, 0)} (${fmt(r.serial.p50Ms)}) | ` +
          `${fmt(r.concurrent.perSecond, 0)} | ${fmt(r.bulk.perSecond)} (${r.bulk.decisions} in ${fmt(r.bulk.settledSeconds)} s) |`,
      );
    }
    const kinds = ITEM_KINDS.filter((kind) =>
      s.repricing!.some((r) => (r.evaluatorWrites.byKind[kind]?.writes ?? 0) + (r.listingWrites.byKind[kind]?.writes ?? 0) > 0),
    );
    out('\nDecision write units by item kind (item writes in brackets):\n');
    out(`| competitors | ${kinds.map((k) => KIND_LABELS[k]).join(' | ')} |`);
    out(`|---:|${kinds.map(() => '---:').join('|')}|`);
    for (const r of s.repricing) {
      const cells = kinds.map((k) => {
        const u = r.evaluatorWrites.byKind[k] ?? r.listingWrites.byKind[k];
        return u ? `${fmt(u.table + u.indexes)} (${fmt(u.writes, 2)})` : '';
      });
      out(`| ${r.competitors} | ${cells.join(' | ')} |`);
    }
  }

  // 7. Bundles.
  if (s.bundles.length > 0) {
    const bare = s.bundles[0]!;
    out('\n## Lambda bundles (esbuild, as deployed) and cold import time (median of fresh Node processes)\n');
    out('| bundle | KiB | x bare | cold import ms | x bare |\n|---|---:|---:|---:|---:|');
    for (const b of s.bundles)
      out(`| ${b.name} | ${fmt(b.bytes / 1024)} | ${fmt(b.bytes / bare.bytes, 2)} | ${fmt(b.coldImportMs)} | ${fmt(b.coldImportMs / bare.coldImportMs, 2)} |`);
  }

  // 8. Checks.
  out('\n## Totals and failures\n');
  out('| offers | tenant | query | expected total | meta.total |');
  out('|---:|---|---|---:|---:|');
  for (const c of [...s.checks, ...s.throughput.flatMap((t) => t.checks)])
    out(`| ${int(c.size)} | ${c.tenant} | \`${c.params || '(none)'}\` | ${c.expected} | ${c.got}${c.got === c.expected ? '' : ' **WRONG**'} |`);
  out(
    `\nMaintainer messages dead-lettered or stream records given up: ${s.failures.maintainer}; runtime errors: ${s.failures.runtimeErrors.length}; ` +
      `conditional writes refused during measured operations: ${s.operations.reduce((n, o) => n + o.refused, 0) + s.loads.reduce((n, l) => n + l.refused, 0)}.`,
  );
  return lines;
};
