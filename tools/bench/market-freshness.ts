/** The freshness part: repriced products' pages read at a limited rate for several tier periods; each view's age from the simulator's read log. */
import { shapePreset } from '../market/shapes.js';
import { createRepricerFor } from '../admin/repricers.js';
import { MARKET_SYNC } from '../../lambdas/config/market-sync.js';
import type { TrafficSummary } from '../market/traffic.js';
import { viewAges, type AgeFigures } from './market-figures.js';
import type { MarketSyncSettings } from './market-sync-settings.js';
import { say, sleep, startPhase, stopPhase, syncCycle, nextTick, sendTick } from './market-phase.js';
import type { MarketSyncContext } from './market-phase.js';

export interface FreshnessFigures {
  readonly products: number;
  readonly storefrontLimit: number;
  readonly tickSeconds: number;
  readonly seconds: number;
  readonly ticks: number;
  readonly ages: AgeFigures;
  readonly readsPerSecond: number;
  readonly traffic: TrafficSummary;
}

export const measureFreshness = async (context: MarketSyncContext, settings: MarketSyncSettings): Promise<FreshnessFigures> => {
  say(`\n== freshness: ${settings.freshnessProducts} repriced products, storefront limited to ${settings.storefrontLimit}/s, ${settings.freshnessSeconds} s`);
  const phase = await startPhase(
    context,
    'freshness',
    {
      seed: settings.seed + 3,
      shapes: shapePreset(settings.shapes),
      products: settings.freshnessProducts,
      competitors: 5,
      // Bots move on their own (system clock) while the loop runs.
      tickIntervalMs: 5_000,
      storefrontRateLimit: { capacity: settings.storefrontLimit, refillPerSecond: settings.storefrontLimit },
    },
    MARKET_SYNC.storefrontRequestsPerSecond,
    'LATEST',
  );
  try {
    const readsFrom = Date.now();
    const initial = await syncCycle(phase, (settings.freshnessProducts / settings.storefrontLimit) * 3_000 + 120_000);
    say(`  initial sync: ${initial.seconds.toFixed(0)} s; creating ${settings.freshnessProducts} enabled repricers`);
    const owner = { clientId: phase.clientId, defaultConnector: phase.defaultConnector };
    for (const product of phase.market.simulation.market.products) {
      await createRepricerFor(owner, {
        product_code: product.own.sku,
        preferred_price: product.own.selling_price,
        preferred_profit: 0,
        min_profit: 0,
        buybox_approach: 'cheapest',
        repricer_approach: 'fixed',
        enabled: true,
      });
    }
    await phase.harness.settle();
    const started = Date.now();
    const until = started + settings.freshnessSeconds * 1000;
    let ticks = 0;
    const pending: Promise<unknown>[] = [];
    // The schedule's ticks, `tickSeconds` apart in real time, each with the next tick number (a
    // product's tier is due by the number, so none may be skipped; a tick ahead of the clock is handled like one on time).
    const first = nextTick(phase);
    for (let i = 0; started + i * settings.tickSeconds * 1000 < until && i < 1_000; i++) {
      await sleep(started + i * settings.tickSeconds * 1000 - Date.now());
      ticks += 1;
      pending.push(sendTick(phase, first + i));
      say(`  tick ${ticks} at ${((Date.now() - started) / 1000).toFixed(0)} s; ${phase.market.control.traffic().storefront_reads} pages read so far`);
    }
    await sleep(until - Date.now());
    const ended = Date.now();
    await Promise.allSettled(pending);
    const { products } = phase.market.control.reads();
    const reads = new Map(Object.entries(products));
    // Ages are sampled once a tier period has passed (or half the run, when shorter): before that the first reads are still under way.
    const tierMs = (MARKET_SYNC.repricedEverySeconds / MARKET_SYNC.tickSeconds) * settings.tickSeconds * 1000;
    const from = started + Math.min(tierMs, (ended - started) / 2);
    const ages = viewAges(reads, { readsFrom, from, to: ended, everyMs: 1_000 });
    const readsInWindow = [...reads.values()].reduce((sum, times) => sum + times.filter((t) => t >= started && t <= ended).length, 0);
    return {
      products: settings.freshnessProducts,
      storefrontLimit: settings.storefrontLimit,
      tickSeconds: settings.tickSeconds,
      seconds: (ended - started) / 1000,
      ticks,
      ages,
      readsPerSecond: readsInWindow / ((ended - started) / 1000),
      traffic: phase.market.control.traffic(),
    };
  } finally {
    await stopPhase(phase);
  }
};
