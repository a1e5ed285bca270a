import { createHash } from 'node:crypto';
import type { ProductMarket } from '../storefront-page.js';

/**
 * A digest of what a page showed of its market: the variant, and each offer's seller, price,
 * stock and buy-box slots, in a fixed order. Two looks with different digests saw the market
 * move (what the planner's move estimate counts); an offer's rating or name alone is no move.
 */
export const marketPrint = (market: Pick<ProductMarket, 'variantId' | 'offers' | 'buyBoxShown'>): string => {
  const offers = market.offers
    .map((offer) => [offer.sellerId, offer.sku ?? '', offer.price, offer.inStock ? 1 : 0, offer.bestPrice ? 1 : 0, offer.fastestDelivery ? 1 : 0].join(':'))
    .sort();
  return createHash('sha256')
    .update(JSON.stringify([market.variantId ?? '', market.buyBoxShown, offers]))
    .digest('base64url')
    .slice(0, 22);
};
