/**
 * The prices benchmark (`npm run bench -- --prices [--quick]`, docs/performance.md): decisions
 * reaching the marketplace simulator through the service as `npm start` runs it. Three runs,
 * each skippable (`--skip webhooks,polling,faults`):
 *  - webhooks: the marketplace's webhooks on; reaction, outcome against the static-price
 *    seller, the kill switch (mode suggest) at 2/3 of the window, and what recording a decision
 *    alone writes (after the switch);
 *  - polling: the webhooks off; reaction, and the writes per applied change (window and drain);
 *  - faults: 5 % of calls 500, 2 s latency (the start-up and the first third), 429 bursts, the
 *    key revoked at 40 % and put back at 60 % of the window;
 *  - write-faults: 30 % of price writes (`POST /offers/batch`) answered 500 from the start-up
 *    to the window's end: time from a market move to its price applied, out of bounds, lost,
 *    and sent twice (a price the offer already had, a repeated request, a push counted twice).
 * Every run: every price the simulator accepted against its repricer's bounds, and every
 * decision's end against the simulator's price log. Each figure printed against its target.
 */
import { useLocalSecretsKey } from '../local/secrets-key.js';
import { met, verdictLine, type Target } from './market-figures.js';
import type { MarketSyncContext } from './market-phase.js';
import { runPrices, BENCH_SAFETY, REACTION_MARGIN_MS, type RunFigures, type RunPlan } from './prices-run.js';
import type { PricesSettings } from './prices-settings.js';
import { tallyOf, type ItemKind, type WriteTally } from './write-meter.js';

export { pricesSettings } from './prices-settings.js';

const PLANS: readonly RunPlan[] = [
  { run: 'webhooks', webhooks: true, killSwitchAt: 2 / 3 },
  { run: 'polling', webhooks: false, liveCost: true },
  { run: 'faults', webhooks: true, faults: true },
  { run: 'write-faults', webhooks: true, writeFaults: 0.3 },
];

/** The writes of a decision and of its way to the marketplace: the price change, its decision state, its lists, the id counter. */
const BATCH_DELAY_NOTE = "the simulator's batch delay later";

export const DECISION_KINDS: readonly ItemKind[] = ['priceChange', 'decision', 'priceChangeListing', 'priceChangeNode', 'counter'];

export interface PricesReport {
  readonly settings: Omit<PricesSettings, 'skip'> & { readonly skip: string[] };
  readonly safety: typeof BENCH_SAFETY;
  readonly runs: readonly RunFigures[];
  readonly targets: readonly (Target & { met: boolean })[];
  readonly lines: readonly string[];
}

const seconds = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} s` : '-');
const share = (value: number) => (Number.isFinite(value) ? `${(value * 100).toFixed(0)} %` : '-');
const byKind = (tally: WriteTally) =>
  Object.entries(tally.byKind)
    .map(([kind, units]) => `${kind} ${units!.table + units!.indexes}`)
    .join(', ') || 'nothing';

/** The lines printed for the runs, each target with MET or MISSED. */
export const pricesLines = (runs: readonly RunFigures[]): { lines: string[]; targets: Target[] } => {
  const lines: string[] = [];
  const targets: Target[] = [];
  const judge = (target: Target) => {
    targets.push(target);
    lines.push(`    ${verdictLine(target)}`);
  };
  for (const run of runs) {
    const { reaction: r } = run;
    lines.push(
      `Run "${run.run}" (${run.products} products x 5 bots + the static seller, webhooks ${run.webhooks ? 'on' : 'off'}${run.run === 'faults' ? ', faults' : run.run === 'write-faults' ? ', 30 % write faults' : ''}; window ${run.windowSeconds.toFixed(0)} s, ${run.botTicks} bot ticks, ${run.scheduleTicks} schedule ticks; set-up ${run.setupSeconds.toFixed(0)} s with ${run.startupDecisions} start-up decisions; drained in ${run.drainSeconds.toFixed(0)} s):`,
    );
    lines.push(
      `  Reaction (${r.seenToApplied.count} reads calling for a new price answered, ${r.afterNextRead} of them only after the page's next read; ${r.missed} never answered, ${r.unresolved} with no later read; ${r.notNeeded} needing none; tier ${r.tierSeconds} s${run.killSwitch ? `, reads up to ${REACTION_MARGIN_MS / 1000} s before the kill switch` : ''}):`,
    );
    lines.push(
      `    competitor change -> seen by the service (its storefront read): p50 ${seconds(r.changeToSeen.p50)}, p99 ${seconds(r.changeToSeen.p99)}, max ${seconds(r.changeToSeen.max)}`,
    );
    lines.push(
      `    seen -> applied in the simulator (the part the service controls): p50 ${seconds(r.seenToApplied.p50)}, p99 ${seconds(r.seenToApplied.p99)}, max ${seconds(r.seenToApplied.max)}`,
    );
    lines.push(
      `      of which seen -> decision made (the evaluator's price change): p50 ${seconds(r.seenToDecided.p50)}, p99 ${seconds(r.seenToDecided.p99)} (${r.seenToDecided.count} matched)`,
    );
    lines.push(`    change -> applied: p50 ${seconds(r.changeToApplied.p50)}, p99 ${seconds(r.changeToApplied.p99)}, max ${seconds(r.changeToApplied.max)}`);
    const t = run.serviceTimes;
    lines.push(
      `    the service's own times: decision -> sent p50 ${seconds(t.createdToSent.p50)}, p99 ${seconds(t.createdToSent.p99)}; sent -> applied (confirmed) p50 ${seconds(t.sentToApplied.p50)}, p99 ${seconds(t.sentToApplied.p99)}; start-up decisions -> applied p50 ${seconds(t.startupCreatedToApplied.p50)}, p99 ${seconds(t.startupCreatedToApplied.p99)}`,
    );
    if (run.run === 'write-faults') {
      const e = run.exactlyOnce;
      const counted = Number(run.connection.prices_sent ?? 0);
      const writes = run.traffic.requests['POST /offers/batch'] ?? 0;
      lines.push(
        `  Write faults: ${writes} price writes, 30 % of them answered 500 (not taken); the service counted ${counted} prices sent, the simulator accepted ${e.accepted}`,
      );
      judge({ label: `${run.run}: market move -> target applied, max (within 2 minutes)`, value: r.changeToApplied.max, kind: 'max', limit: 120, unit: 's' });
      judge({ label: `${run.run}: lost (reads never answered, decisions not ended)`, value: r.missed + e.notTerminal, kind: 'max', limit: 0 });
      judge({
        label: `${run.run}: sent twice (a price the offer already had ${e.logDuplicates.unchanged_price}, repeated requests ${e.logDuplicates.request_id}, twice in a batch ${e.logDuplicates.within_batch}, pushes counted twice ${Math.max(0, counted - e.accepted)})`,
        value: e.logDuplicates.unchanged_price + e.logDuplicates.request_id + e.logDuplicates.within_batch + Math.max(0, counted - e.accepted),
        kind: 'max',
        limit: 0,
      });
    }
    if (run.run !== 'faults' && run.run !== 'write-faults') {
      judge({
        label: `${run.run}: seen -> applied p50 (the service's part; the 3 s target of competitor change -> applied)`,
        value: r.seenToApplied.p50,
        kind: 'max',
        limit: 3,
        unit: 's',
      });
      judge({ label: `${run.run}: seen -> applied p99 (the service's part; the 10 s target)`, value: r.seenToApplied.p99, kind: 'max', limit: 10, unit: 's' });
      judge({
        label: `${run.run}: change -> applied p99 (within the tier's ${r.tierSeconds} s + 10 s)`,
        value: r.changeToApplied.p99,
        kind: 'max',
        limit: r.tierSeconds + 10,
        unit: 's',
      });
    }
    const p = run.prices;
    lines.push(`  Safety (${p.checked} prices the simulator accepted, against each repricer's floor, ceiling, RRP and step):`);
    judge({ label: `${run.run}: prices below the floor`, value: p.belowFloor, kind: 'max', limit: 0 });
    judge({ label: `${run.run}: prices above the ceiling`, value: p.aboveCeiling, kind: 'max', limit: 0 });
    judge({ label: `${run.run}: prices above the RRP`, value: p.aboveRrp, kind: 'max', limit: 0 });
    judge({ label: `${run.run}: prices off the step grid`, value: p.offGrid, kind: 'max', limit: 0 });
    if (p.unknownOffer) lines.push(`    ${p.unknownOffer} prices for offers without a repricer`);
    const e = run.exactlyOnce;
    lines.push(
      `  Exactly once (${e.decisions} decisions: ${Object.entries(e.byStatus)
        .map(([status, n]) => `${n} ${status}`)
        .join(', ')}; ${e.accepted} prices accepted):`,
    );
    judge({ label: `${run.run}: decisions not ended (pending or sent after the drain)`, value: e.notTerminal, kind: 'max', limit: 0 });
    if (run.unfinished.length > 0) {
      const retries = run.unfinished.map((u) => u.retryInSeconds).filter((t): t is number => t !== null);
      const groups = new Map<string, number>();
      for (const u of run.unfinished) groups.set(`${u.status} after ${u.attempts} faults`, (groups.get(`${u.status} after ${u.attempts} faults`) ?? 0) + 1);
      lines.push(
        `    not ended: ${[...groups].map(([what, count]) => `${count} ${what}`).join(', ')}${retries.length ? `; the sender's next tries due within ${Math.max(...retries).toFixed(0)} s` : ''}`,
      );
    }
    judge({ label: `${run.run}: applied decisions whose price the simulator never accepted`, value: e.appliedNotInLog, kind: 'max', limit: 0 });
    judge({
      label: `${run.run}: prices sent twice (the log's repeated request ids ${e.logDuplicates.request_id}, offers twice in a batch ${e.logDuplicates.within_batch}, a price the offer already had ${e.logDuplicates.unchanged_price})`,
      value: e.logDuplicates.request_id + e.logDuplicates.within_batch + e.logDuplicates.unchanged_price,
      kind: 'max',
      limit: 0,
    });
    judge({ label: `${run.run}: prices accepted with no decision before them`, value: e.unattributed, kind: 'max', limit: 0 });
    lines.push(`    prices accepted beyond one per decision sent (steps of a large move, or repeats): ${e.extraPushes}`);
    if (run.killSwitch) {
      const k = run.killSwitch;
      lines.push(
        `  Kill switch (mode suggest at ${k.atSeconds.toFixed(0)} s): ${k.updatesAfter} prices accepted after it, the last ${seconds(k.lastUpdateAfterSeconds)} after`,
      );
      lines.push(`    applied by the simulator more than 1 s after (batches sent before it settle ${BATCH_DELAY_NOTE}): ${k.appliedLate}`);
      judge({
        label: `${run.run}: prices reaching the simulator (the request's arrival) more than 1 s after the switch`,
        value: k.lateUpdates,
        kind: 'max',
        limit: 0,
      });
    }
    if (run.revoke) {
      const v = run.revoke;
      lines.push(
        `  Key revoked at ${v.revokedAtSeconds.toFixed(0)} s (the connection then showed ${v.statusBeforeRestore}${v.lastErrorBeforeRestore ? `: ${v.lastErrorBeforeRestore}` : ''}), a new key put in at ${v.restoredAtSeconds.toFixed(0)} s; ${v.burstsOf429} 429 bursts (${v.refusedBursts} of the burst's own requests refused)`,
      );
      lines.push(
        `    prices accepted while revoked: ${v.acceptedWhileRevoked}; after the new key: ${v.acceptedAfterRestore}, the first ${seconds(v.firstAfterRestoreSeconds)} after the PUT`,
      );
      judge({
        label: `${run.run}: sending not resumed after the key was put back (1: none accepted)`,
        value: v.acceptedAfterRestore > 0 ? 0 : 1,
        kind: 'max',
        limit: 0,
      });
    }
    if (run.outcome) {
      lines.push(
        '  Outcome: share of time in the Best Price slot, the repriced demo seller against the static-price seller (sampled every second up to the kill switch):',
      );
      const labels = {
        below: "demo floor under every bot's floor",
        between: "between the cheapest bot's floor and its start price",
        above: "at or above the cheapest bot's start price",
      };
      for (const group of run.outcome) {
        lines.push(`    ${labels[group.group]} (${group.products} products): demo ${share(group.demoShare)}, static ${share(group.staticShare)}`);
      }
    }
    if (run.approaches && run.approaches.length > 1) {
      lines.push(
        '  Approaches side by side (on twins: each family of identical products has one product per approach, its bots moving alike; static: no repricer, the own offer keeps its price; sampled every second up to the kill switch; buybox prices with the in-stock premium the service learned for each product from its pages, the default 0-10 % until it has):',
      );
      lines.push(
        `    ${'approach'.padEnd(17)} ${'products'.padStart(8)} ${'Best Price'.padStart(10)} ${'Fastest Delivery'.padStart(16)} ${'margin over floor'.padStart(18)} ${'margin holding Best Price'.padStart(25)}`,
      );
      for (const a of run.approaches) {
        const margin = Number.isFinite(a.averageMargin) ? `R${a.averageMargin.toFixed(2)} (${a.averageMarginPercent.toFixed(1)} %)` : '-';
        lines.push(
          `    ${a.approach.padEnd(17)} ${String(a.products).padStart(8)} ${share(a.bestPriceShare).padStart(10)} ${share(a.fastestDeliveryShare).padStart(16)} ${margin.padStart(18)} ${(Number.isFinite(a.bestPriceMarginPercent) ? `${a.bestPriceMarginPercent.toFixed(1)} %` : '-').padStart(25)}`,
        );
      }
      // The twins make this a like-for-like comparison: buybox should hold Best Price as often as cheapest, at a higher margin.
      const cheapest = run.approaches.find((a) => a.approach === 'cheapest');
      const buybox = run.approaches.find((a) => a.approach === 'buybox');
      if (cheapest && buybox) {
        judge({
          label: `${run.run}: Best Price share, cheapest's less buybox's (points)`,
          value: Math.round((cheapest.bestPriceShare - buybox.bestPriceShare) * 1000) / 10,
          kind: 'max',
          limit: 0,
        });
        judge({
          label: `${run.run}: margin over the floor while holding Best Price, cheapest's less buybox's (points of the floor)`,
          value: Math.round((cheapest.bestPriceMarginPercent - buybox.bestPriceMarginPercent) * 10) / 10,
          kind: 'below',
          limit: 0,
        });
        judge({
          label: `${run.run}: margin over the floor at every moment, cheapest's less buybox's (points of the floor)`,
          value: Math.round((cheapest.averageMarginPercent - buybox.averageMarginPercent) * 10) / 10,
          kind: 'below',
          limit: 0,
        });
      }
    }
    const polite = run.traffic.politeness;
    lines.push(
      `  Traffic: seller API ${polite.seller.requests} requests (${polite.seller.refused} refused, ${polite.seller.inside_retry_after} inside a Retry-After), storefront ${run.traffic.storefront_reads} pages; webhooks ${run.webhookDeliveries.delivered} delivered, ${run.webhookDeliveries.failed} failed; connection ${String(run.connection.status)}, prices_sent ${String(run.connection.prices_sent)}`,
    );
    lines.push(`    seller API by route: ${JSON.stringify(run.traffic.requests)}`);
    if (run.run !== 'faults')
      judge({ label: `${run.run}: seller API requests inside a Retry-After window`, value: polite.seller.inside_retry_after, kind: 'max', limit: 0 });
  }
  // The cost: a live run's writes per applied change against the kill switch's window per decision recorded alone.
  const liveRun = runs.find((run) => run.liveCost);
  const suggestRun = runs.find((run) => run.suggestCost);
  if (liveRun?.liveCost || suggestRun?.suggestCost) {
    lines.push(`Cost (write units, AWS's model, from the stream; the price changes' items: ${DECISION_KINDS.join(', ')}):`);
    let perApplied = NaN;
    let perDecision = NaN;
    if (liveRun?.liveCost) {
      const { tally, applied } = liveRun.liveCost;
      const live = tallyOf(tally, DECISION_KINDS);
      perApplied = applied ? live.total / applied : NaN;
      lines.push(
        `    run "${liveRun.run}", window and drain: ${live.total} units for ${applied} applied changes = ${perApplied.toFixed(1)} per applied change (${byKind(live)})`,
      );
      lines.push(`    everything else written meanwhile: ${byKind(tallyOf(tally, DECISION_KINDS, true))}`);
    }
    if (suggestRun?.suggestCost) {
      const { tally, suggested } = suggestRun.suggestCost;
      const suggest = tallyOf(tally, DECISION_KINDS);
      perDecision = suggested ? suggest.total / suggested : NaN;
      lines.push(
        `    run "${suggestRun.run}", after the kill switch: ${suggest.total} units for ${suggested} decisions recorded as suggested = ${perDecision.toFixed(1)} per decision (${byKind(suggest)})`,
      );
    }
    judge({ label: 'write units per applied change / per decision recorded', value: perApplied / perDecision, kind: 'max', limit: 3, unit: 'x' });
  }
  return { lines, targets };
};

export const runPricesBench = async (context: MarketSyncContext, settings: PricesSettings): Promise<PricesReport> => {
  useLocalSecretsKey();
  const runs: RunFigures[] = [];
  for (const [index, plan] of PLANS.entries()) {
    if (settings.skip.has(plan.run)) continue;
    runs.push(await runPrices({ ...context, runId: `${context.runId}-${plan.run}` }, settings, plan, index));
  }
  const { lines: figureLines, targets } = pricesLines(runs);
  const lines = [`Simulator shapes: ${settings.shapes}`, ...figureLines];
  return { settings: { ...settings, skip: [...settings.skip] }, safety: BENCH_SAFETY, runs, targets: targets.map((t) => ({ ...t, met: met(t) })), lines };
};
