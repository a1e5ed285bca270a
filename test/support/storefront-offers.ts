import type { MarketOffer } from '../../lambdas/marketplace/port.js';

/**
 * One offer of a storefront page as the marketplace adapter returns it: in stock, sold by a
 * seller (not the marketplace itself), holding neither buy-box slot unless `overrides` says so.
 */
export const storefrontOffer = (sellerId: string, price: number, overrides: Partial<MarketOffer> = {}): MarketOffer => ({
  sellerId,
  sellerName: `Seller ${sellerId}`,
  price,
  inStock: true,
  isMarketplaceItself: false,
  bestPrice: false,
  fastestDelivery: false,
  ...overrides,
});
