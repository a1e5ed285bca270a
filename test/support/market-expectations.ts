/**
 * What the service should serve for a simulated market: each offer's fields as the simulator's
 * own state has them (its products, their listed offers and its buy-box rule), and the fields
 * where a served offer differs. The convergence tests compare with this, never with the
 * service's own derivation.
 */
import type { Offer } from '../../lambdas/domain/records.js';
import type { Simulation } from '../../tools/market/index.js';

export interface ExpectedOffer {
  readonly offer_price: number;
  readonly offer_status: string;
  readonly stock_status: string;
  readonly winning: boolean;
  readonly winning_delivery: boolean;
  readonly winning_price: number;
  readonly total_competitors: number;
}

/** Keyed by the service's offer id: the own offer id, or `takealot:<plid>:<seller id>` for a competitor. */
export const expectedOffers = (sim: Simulation): Map<string, ExpectedOffer> => {
  const expected = new Map<string, ExpectedOffer>();
  for (const product of sim.market.products) {
    const listed = sim.market.listedOffers(product);
    const box = sim.market.buyBox(product);
    const best = listed.find((offer) => offer.id === box.bestPrice?.id);
    const winningPrice = best?.price ?? 0;
    const ownId = String(product.own.offer_id);
    const onPage = listed.some((offer) => offer.id === ownId);
    expected.set(ownId, {
      offer_price: product.own.selling_price,
      offer_status: product.own.status,
      stock_status: product.own.takealot_warehouse_stock.some((stock) => stock.quantity_available > 0) ? 'in_stock' : 'lead_time',
      winning: box.bestPrice?.id === ownId,
      winning_delivery: box.fastestDelivery?.id === ownId,
      winning_price: winningPrice,
      total_competitors: onPage ? listed.length - 1 : listed.length,
    });
    for (const offer of listed) {
      if (offer.id === ownId) continue;
      expected.set(`takealot:${product.plid}:${offer.seller.seller_id}`, {
        offer_price: offer.price,
        offer_status: 'buyable',
        stock_status: offer.in_stock ? 'in_stock' : 'lead_time',
        winning: box.bestPrice?.id === offer.id,
        winning_delivery: box.fastestDelivery?.id === offer.id,
        winning_price: winningPrice,
        total_competitors: listed.length - 1,
      });
    }
  }
  return expected;
};

const FIELDS = ['offer_price', 'offer_status', 'stock_status', 'winning', 'winning_delivery', 'winning_price', 'total_competitors'] as const;

/**
 * Every field where the served offers differ from the simulator: an expected offer missing, or
 * a field with another value. A served competitor the page no longer lists must be `not_buyable`
 * and hold no slot; its other fields are those of its last sighting.
 */
/** `served`: every offer of the tenant (a tenant whose offers all came from this market). */
export const marketDifferences = (served: readonly Offer[], expected: ReadonlyMap<string, ExpectedOffer>): string[] => {
  const differences: string[] = [];
  const byId = new Map(served.map((offer) => [offer.offer_id, offer]));
  for (const [offerId, want] of expected) {
    const got = byId.get(offerId);
    if (!got) {
      differences.push(`${offerId}: missing`);
      continue;
    }
    for (const field of FIELDS)
      if (got[field] !== want[field]) differences.push(`${offerId}.${field}: served ${String(got[field])}, market ${String(want[field])}`);
  }
  for (const [offerId, got] of byId) {
    if (expected.has(offerId)) continue;
    if (got.offer_status !== 'not_buyable' || got.winning || got.winning_delivery)
      differences.push(`${offerId}: off the page but served as ${got.offer_status}${got.winning ? ', winning' : ''}`);
  }
  return differences;
};
