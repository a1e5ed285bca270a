/** The convergence part: a seeded market history under faults, then two sync cycles; every offer field served compared with the market. */
import { shapePreset } from '../market/shapes.js';
import { MARKET_SYNC } from '../../lambdas/config/market-sync.js';
import { OFF_MARKET_STATUS } from '../../lambdas/domain/market-apply.js';
import { deriveMarketView, type BuyBoxFields } from '../../lambdas/domain/market-snapshot.js';
import type { Offer } from '../../lambdas/domain/records.js';
import { productMarketOf, productDetailsBody } from '../../lambdas/marketplace/takealot/product-page.js';
import { type MarketSimulator } from '../market/index.js';
import { createPrng } from '../market/prng.js';
import { productDetails } from '../market/storefront-route.js';
import type { TrafficSummary } from '../market/traffic.js';
import { compareOffers, type ComparedFields, type FieldDifference } from './market-figures.js';
import type { MarketSyncSettings } from './market-sync-settings.js';
import { say, startPhase, stopPhase, syncCycle, servedOffers } from './market-phase.js';
import type { MarketSyncContext } from './market-phase.js';

export const buyBoxFields = (fields: BuyBoxFields): ComparedFields => ({
  winning: fields.winning,
  winning_delivery: fields.winning_delivery,
  winning_price: fields.winning_price ?? 0,
  total_competitors: fields.total_competitors,
  competitiveness: fields.competitiveness,
});

/**
 * What the service should serve for the market as it is now: per own offer the seller API's
 * fields and its page's buy-box fields; per competitor on a page its fields there. The page is
 * the simulator's own answer read through the adapter's parser and the service's derivation,
 * so this measures whether the synced data is current and complete (the derivation's rules are
 * tested on their own: test/unit/domain/market-snapshot*.test.ts).
 */
export const expectedOffers = (market: MarketSimulator, sellerId: string): Map<string, ComparedFields> => {
  const expected = new Map<string, ComparedFields>();
  for (const product of market.simulation.market.products) {
    const { own } = product;
    const page = productMarketOf(
      String(product.plid),
      productDetailsBody.parse(productDetails(market.simulation.market, product, { shapes: market.options.shapes })),
    );
    const view = deriveMarketView(page, { ownSellerId: sellerId, priceStep: 1 });
    // In stock: held at the marketplace's warehouses, so it ships now (docs/market-sync.md).
    const stock = own.takealot_warehouse_stock.reduce((sum, entry) => sum + entry.quantity_available, 0);
    const ownOnPage = view.offers.find((offer) => offer.own);
    expected.set(`own ${own.offer_id}`, {
      offer_price: own.selling_price,
      offer_status: own.status,
      stock_status: stock > 0 ? 'in_stock' : 'lead_time',
      ...buyBoxFields(ownOnPage ?? view.absentOffer(own.selling_price)),
    });
    for (const offer of view.offers) {
      if (offer.own) continue;
      expected.set(`${own.sku} / ${offer.sellerId}`, {
        offer_price: offer.price,
        offer_status: 'buyable',
        stock_status: offer.stock_status,
        seller_name: offer.seller_name,
        rating_avg: offer.rating_avg,
        rating_count: offer.rating_count,
        ...buyBoxFields(offer),
      });
    }
  }
  return expected;
};

/** A competitor's offer id is `<connector>:<product line>:<seller>`; the marketplace's own offer ids are digits. */
export const servedFields = (offers: readonly Offer[]): Map<string, ComparedFields> =>
  new Map(
    offers.map((offer) => [
      offer.offer_id.includes(':') ? `${offer.product.code} / ${offer.seller_id}` : `own ${offer.offer_id}`,
      {
        offer_price: offer.offer_price,
        offer_status: offer.offer_status,
        stock_status: offer.stock_status,
        seller_name: offer.seller_name,
        rating_avg: offer.rating_avg,
        rating_count: offer.rating_count,
        winning: offer.winning,
        winning_delivery: offer.winning_delivery,
        winning_price: offer.winning_price,
        total_competitors: offer.total_competitors,
        competitiveness: offer.competitiveness,
      },
    ]),
  );

export interface ConvergenceFigures {
  readonly products: number;
  readonly historyTicks: number;
  readonly ownChanges: number;
  readonly comparedOffers: number;
  readonly comparedFields: number;
  readonly differences: number;
  readonly firstDifferences: readonly FieldDifference[];
  readonly cycleSeconds: readonly number[];
  readonly traffic: TrafficSummary;
  /** The simulator's webhooks to the service's route during the run: delivered, dropped (a fault), sent twice (a fault), failed. */
  readonly webhooks: { readonly delivered: number; readonly dropped: number; readonly duplicated: number; readonly failed: number };
}

/** Own-offer edits a seller makes in the marketplace's portal meanwhile: a new price within the RRP, or disabled / re-enabled. */
export const editOwnOffers = (market: MarketSimulator, prng: ReturnType<typeof createPrng>, count: number): number => {
  const { products } = market.simulation.market;
  let changed = 0;
  for (let i = 0; i < count; i++) {
    const product = products[Math.floor(prng.next() * products.length)]!;
    const { own } = product;
    const change =
      prng.next() < 0.8
        ? { selling_price: Math.max(1, Math.min(own.rrp, Math.round(own.selling_price * (0.9 + prng.next() * 0.2)))) }
        : { status_action: own.status === 'buyable' ? 'Disable' : 'Re-enable' };
    if (market.simulation.updateOwnOffer(product, change, { via: 'patch' }).ok) changed += 1;
  }
  return changed;
};

export const webhookOutcomes = (market: MarketSimulator): ConvergenceFigures['webhooks'] => {
  const deliveries = market.control.webhooks();
  return {
    delivered: deliveries.filter((delivery) => delivery.outcome === 'delivered').length,
    dropped: deliveries.filter((delivery) => delivery.outcome === 'dropped').length,
    duplicated: deliveries.filter((delivery) => delivery.duplicated).length,
    failed: deliveries.filter((delivery) => delivery.outcome === 'failed').length,
  };
};

export const measureConvergence = async (context: MarketSyncContext, settings: MarketSyncSettings): Promise<ConvergenceFigures> => {
  say(`\n== convergence: ${settings.products} products, ${settings.historyTicks} bot ticks of history under faults`);
  const phase = await startPhase(
    context,
    'convergence',
    {
      seed: settings.seed,
      products: settings.products,
      competitors: 5,
      shapes: shapePreset(settings.shapes),
      faults: { webhookDropRate: 0.5, webhookDuplicateRate: 0.2, page2Bug: true, errorRate: 0.05 },
    },
    MARKET_SYNC.storefrontRequestsPerSecond,
    'TRIM_HORIZON',
    true,
  );
  try {
    const prng = createPrng(settings.seed + 1);
    const timeoutMs = (settings.products / MARKET_SYNC.storefrontRequestsPerSecond) * 3_000 + 120_000;
    const cycleSeconds: number[] = [];
    // A first sync, then history with a sync in its middle (the service has a past to correct), then two cycles.
    cycleSeconds.push((await syncCycle(phase, timeoutMs)).seconds);
    let ownChanges = 0;
    for (let tick = 0; tick < settings.historyTicks; tick++) {
      phase.market.control.tick(1);
      ownChanges += editOwnOffers(phase.market, prng, Math.max(1, Math.round(settings.products / 50)));
      if (tick === Math.floor(settings.historyTicks / 2)) cycleSeconds.push((await syncCycle(phase, timeoutMs)).seconds);
    }
    for (let cycle = 0; cycle < 2; cycle++) {
      const { seconds, unread } = await syncCycle(phase, timeoutMs);
      cycleSeconds.push(seconds);
      if (unread > 0) say(`  ${unread} pages not read within the cycle's bound`);
    }
    const expected = expectedOffers(phase.market, phase.sellerId);
    const served = servedFields(await servedOffers(phase.clientId));
    // A competitor that left its page stays served, marked as gone.
    for (const key of served.keys()) if (!key.startsWith('own ') && !expected.has(key)) expected.set(key, { offer_status: OFF_MARKET_STATUS });
    const differences = compareOffers(expected, served);
    const figures: ConvergenceFigures = {
      products: settings.products,
      historyTicks: settings.historyTicks,
      ownChanges,
      comparedOffers: expected.size,
      comparedFields: [...expected.values()].reduce((sum, fields) => sum + Object.keys(fields).length, 0),
      differences: differences.length,
      firstDifferences: differences.slice(0, 10),
      cycleSeconds,
      traffic: phase.market.control.traffic(),
      webhooks: webhookOutcomes(phase.market),
    };
    say(`  ${figures.comparedOffers} offers, ${figures.comparedFields} fields compared; ${figures.differences} differ`);
    say(
      `  marketplace webhooks to the service: ${figures.webhooks.delivered} delivered, ${figures.webhooks.dropped} dropped, ${figures.webhooks.duplicated} sent twice, ${figures.webhooks.failed} failed`,
    );
    return figures;
  } finally {
    await stopPhase(phase);
  }
};
