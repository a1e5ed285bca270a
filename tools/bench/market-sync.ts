/**
 * The market-sync benchmark (`npm run bench -- --market-sync`, docs/performance.md): the market
 * loop as deployed (schedule -> sync worker -> storefront reader, run by the local event
 * runtime) against the marketplace simulator on 127.0.0.1, with DynamoDB Local. Four parts,
 * each figure printed against its target:
 *  - convergence: a seeded market history under faults, then two sync cycles; every offer field
 *    the service serves compared with the market;
 *  - cost: write units of a sync that finds nothing changed and of one competitor's price move,
 *    seller API requests of a full own-offer sync;
 *  - freshness: repriced products' storefront pages read at a limited rate for several tier
 *    periods; the age of each product's view from the simulator's read log;
 *  - politeness: requests above the limits and inside a Retry-After window, from the simulator.
 * Loaded by bin/bench.ts once DynamoDB Local and the table are up.
 */
import { MARKET_SYNC } from '../../lambdas/config/market-sync.js';
import { useLocalSecretsKey } from '../local/secrets-key.js';
import type { TrafficSummary } from '../market/traffic.js';
import { verdictLine, type Target } from './market-figures.js';
import type { WriteTally } from './write-meter.js';
import type { MarketSyncSettings } from './market-sync-settings.js';
import type { MarketSyncContext } from './market-phase.js';
import { measureConvergence } from './market-convergence.js';
import type { ConvergenceFigures } from './market-convergence.js';
import { measureCost } from './market-cost.js';
import type { CostFigures } from './market-cost.js';
import { measureFreshness } from './market-freshness.js';
import type { FreshnessFigures } from './market-freshness.js';
export { marketSyncSettings, type MarketSyncSettings } from './market-sync-settings.js';
export type { MarketSyncContext } from './market-phase.js';
export type { ConvergenceFigures } from './market-convergence.js';
export type { CostFigures } from './market-cost.js';
export type { FreshnessFigures } from './market-freshness.js';

export interface MarketSyncReport {
  readonly settings: Omit<MarketSyncSettings, 'skip'> & { skip: string[] };
  readonly convergence?: ConvergenceFigures;
  readonly cost?: CostFigures;
  readonly freshness?: FreshnessFigures;
  readonly targets: readonly (Target & { met: boolean })[];
  readonly lines: readonly string[];
}

const politenessTargets = (label: string, traffic: TrafficSummary): Target[] => [
  {
    label: `${label}: requests refused above the limit (seller API + storefront)`,
    value: traffic.politeness.seller.refused + traffic.politeness.storefront.refused,
    kind: 'max',
    limit: 0,
  },
  {
    label: `${label}: requests inside a Retry-After window`,
    value: traffic.politeness.seller.inside_retry_after + traffic.politeness.storefront.inside_retry_after,
    kind: 'max',
    limit: 0,
  },
];

/** The lines printed for the figures, each target with MET or MISSED. */
export const reportLines = (figures: Pick<MarketSyncReport, 'convergence' | 'cost' | 'freshness'>): { lines: string[]; targets: Target[] } => {
  const lines: string[] = [];
  const targets: Target[] = [];
  const judge = (target: Target) => {
    targets.push(target);
    lines.push(`  ${verdictLine(target)}`);
  };
  const { convergence, cost, freshness } = figures;
  if (convergence) {
    lines.push(
      `Convergence (${convergence.products} products, ${convergence.historyTicks} bot ticks, ${convergence.ownChanges} own-offer edits; cycles ${convergence.cycleSeconds.map((s) => s.toFixed(0)).join(', ')} s):`,
    );
    judge({
      label: `fields differing of ${convergence.comparedFields} (${convergence.comparedOffers} offers)`,
      value: convergence.differences,
      kind: 'max',
      limit: 0,
    });
    for (const d of convergence.firstDifferences) lines.push(`    ${d.offer} ${d.field}: market ${String(d.expected)}, served ${String(d.served)}`);
    const hooks = convergence.webhooks;
    lines.push(
      `    marketplace webhooks to the service: ${hooks.delivered} delivered, ${hooks.dropped} dropped, ${hooks.duplicated} sent twice, ${hooks.failed} failed`,
    );
  }
  if (cost) {
    lines.push(`Cost (${cost.offers} own offers, ${cost.competitors} competitors each; initial sync ${cost.initialSyncSeconds.toFixed(0)} s):`);
    judge({ label: 'write units of a full sync that finds nothing changed', value: cost.unchanged.total, kind: 'max', limit: 0 });
    judge({ label: "write units of a sync after one competitor's price move (buy box unchanged)", value: cost.competitorMove.total, kind: 'max', limit: 20 });
    lines.push(`    a competitor's move taking Best Price (every offer of the product rewritten): ${cost.competitorTakesBuyBox.total} write units`);
    judge({ label: 'seller API offer pages of a full own-offer sync', value: cost.ownOfferPageRequests, kind: 'max', limit: cost.expectedPageRequests });
    const byKind = (tally: WriteTally) =>
      Object.entries(tally.byKind)
        .map(([kind, units]) => `${kind} ${units!.table + units!.indexes}`)
        .join(', ') || 'nothing';
    lines.push(
      `    unchanged sync wrote: ${byKind(cost.unchanged)}; after the move: ${byKind(cost.competitorMove)}; after the move taking Best Price: ${byKind(cost.competitorTakesBuyBox)}`,
    );
    lines.push(`    seller API requests of the unchanged sync: ${JSON.stringify(cost.sellerRequests)}`);
  }
  if (freshness) {
    const { ages } = freshness;
    lines.push(
      `Freshness (${freshness.products} repriced products, storefront ${freshness.storefrontLimit}/s, ${freshness.seconds.toFixed(0)} s, ${freshness.ticks} ticks ${freshness.tickSeconds} s apart, ${freshness.readsPerSecond.toFixed(1)} pages/s):`,
    );
    lines.push(
      `    age of a repriced product's market view: p50 ${ages.p50Seconds.toFixed(1)} s, p99 ${ages.p99Seconds.toFixed(1)} s, max ${ages.maxSeconds.toFixed(1)} s; longest gap between reads ${ages.longestGapSeconds.toFixed(1)} s; never read ${ages.neverRead}`,
    );
    // 130 s with the schedule's minute; with faster ticks the same margin over the tier, scaled.
    const scale = freshness.tickSeconds / MARKET_SYNC.tickSeconds;
    judge({
      label: `p99 age of a repriced product’s view${scale === 1 ? '' : ` (ticks every ${freshness.tickSeconds} s: target 130 s scaled by ${scale})`}`,
      value: ages.p99Seconds,
      kind: 'below',
      limit: 130 * scale,
      unit: 's',
    });
  }
  lines.push('Politeness (from the simulator’s counters):');
  for (const [label, part] of [
    ['convergence', convergence],
    ['cost', cost],
    ['freshness', freshness],
  ] as const) {
    if (part) for (const target of politenessTargets(label, part.traffic)) judge(target);
  }
  return { lines, targets };
};

export const runMarketSyncBench = async (context: MarketSyncContext, settings: MarketSyncSettings): Promise<MarketSyncReport> => {
  useLocalSecretsKey();
  const convergence = settings.skip.has('convergence') ? undefined : await measureConvergence(context, settings);
  const cost = settings.skip.has('cost') ? undefined : await measureCost(context, settings);
  const freshness = settings.skip.has('freshness') ? undefined : await measureFreshness(context, settings);
  const figures = { ...(convergence ? { convergence } : {}), ...(cost ? { cost } : {}), ...(freshness ? { freshness } : {}) };
  const { lines: figureLines, targets } = reportLines(figures);
  const lines = [`Simulator shapes: ${settings.shapes}`, ...figureLines];
  const { met } = await import('./market-figures.js');
  return { settings: { ...settings, skip: [...settings.skip] }, ...figures, targets: targets.map((t) => ({ ...t, met: met(t) })), lines };
};
