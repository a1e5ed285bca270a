/**
 * The public storefront's product-details endpoint, `GET /rest/v-1-<minor>-0/product-details/PLID<plid>`
 * (minors 8-19), with the buy box computed by buy-box.ts from the offers as they are now.
 * `buybox.items[0]` is the Best Price winner (`is_selected: true`); `items[1]` the Fastest
 * Delivery winner when that is another offer (one item when one offer holds both slots). How
 * each field is written follows the shape settings (shapes.ts); what the page says is the same.
 */
import type { ListedOffer } from './buy-box.js';
import type { Product } from './catalogue.js';
import type { Market } from './market.js';
import { DEFAULT_SHAPES, type ShapeSettings } from './shapes.js';

export const STOREFRONT_PATH = /^\/rest\/v-1-(\d+)-0\/product-details\/PLID(\d+)$/;
export const MIN_MINOR = 8;
export const MAX_MINOR = 19;

/** One offer shown at a price other than its own (a storefront glitch, glitch.ts). */
export interface WrongPrice {
  offerId: string;
  price: number;
}

export interface PageRendering {
  shapes: ShapeSettings;
  wrongPrice: WrongPrice | undefined;
}

/** The storefront's wording: "In stock", or a leadtime offer's shipping window in work days. */
const stockAvailability = (offer: ListedOffer): { status: string; is_leadtime: boolean } =>
  offer.in_stock
    ? { status: 'In stock', is_leadtime: false }
    : { status: `Ships in ${offer.leadtime_days} - ${offer.leadtime_days + 2} work days`, is_leadtime: true };

const sellerIdOf = (offer: ListedOffer, shapes: ShapeSettings): number | string =>
  shapes.sellerIdPrefix ? `M${offer.seller.seller_id}` : offer.seller.seller_id;

/** A stable nine-digit number per offer (FNV-1a of its id): the marketplace's own number, unrelated to the seller's SKU. */
export const marketplaceSku = (offer: ListedOffer): number => {
  let hash = 0x811c9dc5;
  for (const char of offer.id) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return 100_000_000 + (hash % 900_000_000);
};

const skuField = (offer: ListedOffer, shapes: ShapeSettings): Record<string, unknown> => {
  if (shapes.storefrontSku === 'absent') return {};
  return { sku: shapes.storefrontSku === 'number' ? marketplaceSku(offer) : offer.sku };
};

const ratingField = (offer: ListedOffer, shapes: ShapeSettings): Record<string, unknown> => {
  if (shapes.rating === 'absent') return {};
  return { rating: shapes.rating === 'number' ? offer.seller.rating_avg : { average: offer.seller.rating_avg, count: offer.seller.rating_count } };
};

/** Takealot's retail offers name no seller when the `takealotRetail` shape is on. */
const isRetail = (offer: ListedOffer, shapes: ShapeSettings): boolean => shapes.takealotRetail && offer.seller.is_takealot;

/** Where an item's seller is named: on the item, nowhere on it (the page's seller_detail), as a sponsor, or not at all (retail). */
type SellerPlacement = 'item' | 'detail' | 'sponsored' | 'none';

const placementOf = (offer: ListedOffer, inBuyBox: boolean, isSelected: boolean, shapes: ShapeSettings): SellerPlacement => {
  if (isRetail(offer, shapes)) return 'none';
  if (!inBuyBox || shapes.buyboxSeller === 'item') return 'item';
  return isSelected ? 'detail' : 'sponsored';
};

const offerItem = (offer: ListedOffer, placement: SellerPlacement, isSelected: boolean, view: PageRendering): Record<string, unknown> => {
  const { shapes } = view;
  const price = view.wrongPrice?.offerId === offer.id ? view.wrongPrice.price : offer.price;
  return {
    ...skuField(offer, shapes),
    price,
    is_selected: isSelected,
    ...(placement === 'item'
      ? { seller: { seller_id: sellerIdOf(offer, shapes), display_name: offer.seller.display_name, ...ratingField(offer, shapes) } }
      : {}),
    ...(placement === 'sponsored' ? { sponsored_ads_seller_id: sellerIdOf(offer, shapes) } : {}),
    is_takealot: offer.seller.is_takealot,
    stock_availability: stockAvailability(offer),
  };
};

/** A stable bit per product line (FNV-1a of its plid): which lines' pages show a buy box under the `mixed` variant page. */
const lineShowsBuyBox = (plid: number): boolean => {
  let hash = 0x811c9dc5;
  for (const char of String(plid)) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash % 2 === 0;
};

/**
 * The variant whose buy box the page of the product's line shows: the line's default variant
 * (its first); on a line of several variants, none when the `variantPage` shape says the page
 * waits for a choice.
 */
export const pageVariant = (market: Market, product: Product, shapes: ShapeSettings): Product | undefined => {
  const line = market.lineOf(product);
  const shown = line[0] ?? product;
  if (line.length < 2) return shown;
  if (shapes.variantPage === 'none' || (shapes.variantPage === 'mixed' && !lineShowsBuyBox(shown.plid))) return undefined;
  return shown;
};

const tsinField = (product: Product, shapes: ShapeSettings): Record<string, unknown> => {
  if (shapes.buyboxTsin === 'absent') return {};
  return { tsin: shapes.buyboxTsin === 'string' ? String(product.own.tsin_id) : product.own.tsin_id };
};

/** A line of several variants offers the choice (`variants.selectors[].options[]`), each option a variant's tsin. */
const variantsField = (line: readonly Product[], shown: Product | undefined): Record<string, unknown> =>
  line.length < 2
    ? {}
    : {
        variants: {
          selectors: [
            {
              name: 'Variant',
              options: line.map((variant) => ({ tsin: variant.own.tsin_id, value: variant.variant ?? variant.title, is_selected: variant === shown })),
            },
          ],
        },
      };

/**
 * The page of the product's line (whichever of its variants `product` is): the buy box and other
 * offers of the variant it shows (pageVariant), or, on a line whose page shows none, the choice
 * of variants alone.
 */
export const productDetails = (market: Market, product: Product, rendering: Partial<PageRendering> = {}): Record<string, unknown> => {
  const view: PageRendering = { shapes: rendering.shapes ?? DEFAULT_SHAPES, wrongPrice: rendering.wrongPrice };
  const line = market.lineOf(product);
  const shown = pageVariant(market, product, view.shapes);
  const head = shown ?? line[0] ?? product;
  const core = { id: head.plid, title: head.title };
  if (shown === undefined) return { core, ...variantsField(line, undefined), buybox: { items: [] }, other_offers: { conditions: [] } };
  const box = market.buyBox(shown);
  const winners = [box.bestPrice, box.fastestDelivery].filter((offer, index, all): offer is ListedOffer => offer !== undefined && all.indexOf(offer) === index);
  const boxItems = winners.map((offer, index) => offerItem(offer, placementOf(offer, true, index === 0, view.shapes), index === 0, view));
  const selected = winners[0];
  const detail = selected !== undefined && placementOf(selected, true, true, view.shapes) === 'detail' ? selected : undefined;
  return {
    core,
    ...variantsField(line, shown),
    ...(detail === undefined ? {} : { seller_detail: { seller_id: sellerIdOf(detail, view.shapes), display_name: detail.seller.display_name } }),
    buybox: { ...tsinField(shown, view.shapes), items: boxItems },
    other_offers: {
      conditions: [{ condition: 'New', items: box.others.map((offer) => offerItem(offer, placementOf(offer, false, false, view.shapes), false, view)) }],
    },
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
