/**
 * The buy-box rule: ONE pure function from a product's current offers to its two winners.
 *
 * - Best Price: the lowest effective price. An in-stock offer's price counts as
 *   `price * (100 - premium) / 100`, where `premium` is the product's in-stock premium in whole
 *   percent; a leadtime offer counts at its price. The comparison is done in integers
 *   (`price * (100 - premium)` against `price * 100`), so there is no rounding. Ties go to the
 *   earlier listing, then the smaller offer id.
 *   Example: premium 5 %, an in-stock offer at R105 against a leadtime offer at R100:
 *   105 * 95 = 9975 < 100 * 100 = 10000, so the in-stock offer wins although dearer; at R106
 *   (10070) the leadtime offer wins.
 * - Fastest Delivery: the cheapest in-stock offer (ties: earlier listing); when no offer is in
 *   stock, the shortest lead time (ties: cheaper, then earlier listing).
 * - Every other offer is listed under `other_offers`, cheapest first.
 */

export interface ListedOffer {
  /** Stable id: the own offer's `offer_id`, or a competitor offer's key. */
  id: string;
  sku: string;
  price: number;
  in_stock: boolean;
  leadtime_days: number;
  listed_at: number;
  seller: { seller_id: number; display_name: string; rating_avg: number; rating_count: number; is_takealot: boolean };
}

export interface BuyBoxOutcome {
  bestPrice: ListedOffer | undefined;
  fastestDelivery: ListedOffer | undefined;
  /** Offers holding neither slot, cheapest first. */
  others: ListedOffer[];
}

const byListing = (a: ListedOffer, b: ListedOffer): number => a.listed_at - b.listed_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const effectiveHundredths = (offer: ListedOffer, premiumPct: number): number => offer.price * (offer.in_stock ? 100 - premiumPct : 100);

const first = (offers: ListedOffer[], compare: (a: ListedOffer, b: ListedOffer) => number): ListedOffer | undefined =>
  offers.reduce<ListedOffer | undefined>((best, offer) => (best === undefined || compare(offer, best) < 0 ? offer : best), undefined);

export const decideBuyBox = (offers: readonly ListedOffer[], inStockPremiumPct: number): BuyBoxOutcome => {
  if (!Number.isInteger(inStockPremiumPct) || inStockPremiumPct < 0 || inStockPremiumPct > 100)
    throw new RangeError(`premium must be 0-100 %, got ${inStockPremiumPct}`);
  const all = [...offers];
  const bestPrice = first(all, (a, b) => effectiveHundredths(a, inStockPremiumPct) - effectiveHundredths(b, inStockPremiumPct) || byListing(a, b));
  const inStock = all.filter((offer) => offer.in_stock);
  const fastestDelivery =
    inStock.length > 0
      ? first(inStock, (a, b) => a.price - b.price || byListing(a, b))
      : first(all, (a, b) => a.leadtime_days - b.leadtime_days || a.price - b.price || byListing(a, b));
  const others = all.filter((offer) => offer !== bestPrice && offer !== fastestDelivery).sort((a, b) => a.price - b.price || byListing(a, b));
  return { bestPrice, fastestDelivery, others };
};
