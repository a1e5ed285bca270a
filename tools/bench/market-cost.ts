/** The cost part: write units of a sync that finds nothing changed and of one competitor's move, and the seller API requests of a full sync. */
import { shapePreset } from '../market/shapes.js';
import { MARKET_SYNC } from '../../lambdas/config/market-sync.js';
import { isDue } from '../../lambdas/domain/market-schedule.js';
import type { Product } from '../market/catalogue.js';
import type { TrafficSummary } from '../market/traffic.js';
import type { WriteTally } from './write-meter.js';
import type { MarketSyncSettings } from './market-sync-settings.js';
import { say, startPhase, stopPhase, syncCycle, nextTick, tickUntilRead } from './market-phase.js';
import type { MarketSyncContext } from './market-phase.js';

export interface CostFigures {
  readonly offers: number;
  readonly competitors: number;
  readonly initialSyncSeconds: number;
  readonly unchanged: WriteTally;
  /** A competitor without a slot moves; the buy box stays as it was. */
  readonly competitorMove: WriteTally;
  /** A competitor takes Best Price: every offer of the product changes. */
  readonly competitorTakesBuyBox: WriteTally;
  readonly ownOfferPageRequests: number;
  readonly expectedPageRequests: number;
  readonly sellerRequests: Readonly<Record<string, number>>;
  readonly traffic: TrafficSummary;
}

export const requestsDelta = (before: TrafficSummary, after: TrafficSummary): Record<string, number> =>
  Object.fromEntries(Object.entries(after.requests).map(([route, count]) => [route, count - (before.requests[route] ?? 0)]));

export const measureCost = async (context: MarketSyncContext, settings: MarketSyncSettings): Promise<CostFigures> => {
  say(`\n== cost: ${settings.offers} own offers, ${settings.costCompetitors} competitors each`);
  // Pages are read fast here (the simulator's storefront limit raised to match): the figures are write units and requests, not pace.
  const rate = 200;
  const phase = await startPhase(
    context,
    'cost',
    {
      seed: settings.seed + 2,
      // Every page answered: the parts wait for each page's read, and an empty answer is no read (the reported forms otherwise as asked).
      shapes: { ...shapePreset(settings.shapes), emptyPageRate: 0 },
      products: settings.offers,
      competitors: settings.costCompetitors,
      storefrontRateLimit: { capacity: rate * 2, refillPerSecond: rate * 2 },
      sellerRateLimit: { capacity: 100, refillPerSecond: 10 },
    },
    rate,
    'LATEST',
  );
  try {
    const timeoutMs = (settings.offers / rate) * 4_000 + 300_000;
    const initial = await syncCycle(phase, timeoutMs);
    say(`  initial sync: ${initial.seconds.toFixed(0)} s`);
    // Scheduled ticks from here, no sync requested: the tick on which the connection's own
    // offers come round by their phase (its pages of the hourly tier with it), a tick number
    // within the next period (a tick's time may be ahead of the clock, never more than 5 minutes behind).
    const { products } = phase.market.simulation.market;
    const dueOn = (tick: number) => products.filter((product) => isDue(product.own.sku, tick, MARKET_SYNC.othersEverySeconds));
    const first = nextTick(phase);
    const ownTick = Array.from({ length: 15 }, (_, i) => first + i).find((tick) => isDue(phase.uid, tick, MARKET_SYNC.ownOffersEverySeconds))!;
    const before = phase.market.control.traffic();
    const unchanged = await phase.harness.measure(() => tickUntilRead(phase, timeoutMs, ownTick, dueOn(ownTick)));
    const sellerRequests = requestsDelta(before, phase.market.control.traffic());
    say(`  unchanged sync: ${unchanged.writes.total} write units, ${sellerRequests['GET /offers'] ?? 0} offer pages, ${dueOn(ownTick).length} pages due`);
    // One competitor of a product whose page is due on a later tick moves its price: what that
    // tick writes. First a move that leaves the buy box as it was (a competitor without a slot
    // raises its price: only its own offer changes), then one that takes Best Price (every offer
    // of the product gets the new winning price), printed beside it.
    const moveTicks = Array.from({ length: 60 }, (_, i) => ownTick + 1 + i).filter(
      (tick) => dueOn(tick).length > 0 && !isDue(phase.uid, tick, MARKET_SYNC.ownOffersEverySeconds),
    );
    const moveOn = async (tick: number, move: (product: Product) => void) => {
      const product = dueOn(tick)[0]!;
      move(product);
      return phase.harness.measure(() => tickUntilRead(phase, timeoutMs, tick, dueOn(tick)));
    };
    const quiet = await moveOn(moveTicks[0]!, (product) => {
      const box = phase.market.simulation.market.buyBox(product);
      const rival = product.competitors.find((offer) => offer.available && offer.key !== box.bestPrice?.id && offer.key !== box.fastestDelivery?.id);
      if (rival) rival.price += 1;
      else say('  (no competitor without a slot on that product: nothing moved)');
    });
    say(`  one competitor's move, buy box unchanged: ${quiet.writes.total} write units (${dueOn(moveTicks[0]!).length} pages read on that tick)`);
    const winning = await moveOn(moveTicks[1]!, (product) => {
      const box = phase.market.simulation.market.buyBox(product);
      const rival = product.competitors.find((offer) => offer.key !== box.bestPrice?.id) ?? product.competitors[0]!;
      const lowest = Math.min(...phase.market.simulation.market.listedOffers(product).map((offer) => offer.price));
      Object.assign(rival, { available: true, in_stock: true, price: Math.max(1, lowest - 5) });
    });
    say(`  one competitor's move taking Best Price: ${winning.writes.total} write units`);
    return {
      offers: settings.offers,
      competitors: settings.costCompetitors,
      initialSyncSeconds: initial.seconds,
      unchanged: unchanged.writes,
      competitorMove: quiet.writes,
      competitorTakesBuyBox: winning.writes,
      ownOfferPageRequests: sellerRequests['GET /offers'] ?? 0,
      expectedPageRequests: Math.ceil(settings.offers / MARKET_SYNC.ownOffersPageSize),
      sellerRequests,
      traffic: phase.market.control.traffic(),
    };
  } finally {
    await stopPhase(phase);
  }
};
