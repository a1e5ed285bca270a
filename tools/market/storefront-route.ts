/**
 * The public storefront's product-details endpoint, `GET /rest/v-1-<minor>-0/product-details/PLID<plid>`
 * (minors 8-19), with the buy box computed by buy-box.ts from the offers as they are now.
 * `buybox.items[0]` is the Best Price winner (`is_selected: true`); `items[1]` the Fastest
 * Delivery winner when that is another offer (one item when one offer holds both slots).
 */
import type { ListedOffer } from './buy-box.js';
import type { Product } from './catalogue.js';
import type { Market } from './market.js';

export const STOREFRONT_PATH = /^\/rest\/v-1-(\d+)-0\/product-details\/PLID(\d+)$/;
export const MIN_MINOR = 8;
export const MAX_MINOR = 19;

/** The storefront's wording: "In stock", or a leadtime offer's shipping window in work days. */
const stockAvailability = (offer: ListedOffer): { status: string; is_leadtime: boolean } =>
  offer.in_stock
    ? { status: 'In stock', is_leadtime: false }
    : { status: `Ships in ${offer.leadtime_days} - ${offer.leadtime_days + 2} work days`, is_leadtime: true };

const offerItem = (offer: ListedOffer, isSelected: boolean): Record<string, unknown> => ({
  sku: offer.sku,
  price: offer.price,
  is_selected: isSelected,
  seller: {
    seller_id: offer.seller.seller_id,
    display_name: offer.seller.display_name,
    rating: { average: offer.seller.rating_avg, count: offer.seller.rating_count },
  },
  is_takealot: offer.seller.is_takealot,
  stock_availability: stockAvailability(offer),
});

export const productDetails = (market: Market, product: Product): Record<string, unknown> => {
  const box = market.buyBox(product);
  const winners = [box.bestPrice, box.fastestDelivery].filter((offer, index, all): offer is ListedOffer => offer !== undefined && all.indexOf(offer) === index);
  return {
    core: { id: product.plid, title: product.title },
    buybox: { items: winners.map((offer, index) => offerItem(offer, index === 0)) },
    other_offers: { conditions: [{ condition: 'New', items: box.others.map((offer) => offerItem(offer, false)) }] },
  };
};

/** The product of a storefront path, or why not: `bad-minor` for an API version the storefront does not serve. */
export const storefrontTarget = (path: string): { plid: number } | 'not-storefront' | 'bad-minor' => {
  const match = STOREFRONT_PATH.exec(path);
  if (!match) return 'not-storefront';
  const minor = Number(match[1]);
  if (minor < MIN_MINOR || minor > MAX_MINOR) return 'bad-minor';
  return { plid: Number(match[2]) };
};
