import * as z from 'zod';
import { text, toStorableText } from '../../domain/text.js';
import type { BatchStatus, MarketOffer, OwnOfferSnapshot, OwnOffersPage, ProductMarket } from '../port.js';

/**
 * Takealot's payloads (spec/takealot.md sections 1 and 2) and their mapping to the port's types.
 * A response that does not parse is rejected whole (the adapter throws MarketplaceMalformed):
 * nothing is ever half-mapped. Where a form is only reported, both are accepted: ids as numbers
 * or strings, absent fields as missing or null.
 */

/** Ids arrive as numbers (offer_id, productline_id, seller_id) or strings: kept as decimal text. */
const id = z.union([z.int().nonnegative(), text().min(1).max(100)]).transform(String);
/** Whole rand (confirmed for selling_price and rrp). */
const rand = z.int().nonnegative();
/** Display text: kept whatever it holds, made storable. */
const displayText = z.string().transform((value) => toStorableText(value, 500));
const optional = <S extends z.ZodType>(schema: S) => schema.nullish().transform((value) => value ?? undefined);

const warehouseStock = z.array(z.looseObject({ quantity_available: z.number().nonnegative() }));

const ownOffer = z.looseObject({
  offer_id: id,
  sku: text().min(1).max(200),
  barcode: optional(text().max(200)),
  title: displayText,
  productline_id: optional(id),
  selling_price: rand,
  rrp: optional(rand),
  status: text().min(1).max(100),
  minimum_leadtime_days: optional(z.int().nonnegative()),
  seller_warehouse_stock: optional(warehouseStock),
  takealot_warehouse_stock: optional(warehouseStock),
});

const sumStock = (stock: readonly { quantity_available: number }[] | undefined): number =>
  (stock ?? []).reduce((sum, entry) => sum + entry.quantity_available, 0);

const ownOfferSnapshot = (offer: z.infer<typeof ownOffer>): OwnOfferSnapshot => ({
  offerId: offer.offer_id,
  sku: offer.sku,
  ...(offer.barcode ? { barcode: offer.barcode } : {}),
  title: offer.title,
  ...(offer.productline_id === undefined ? {} : { productLineId: offer.productline_id }),
  sellingPrice: offer.selling_price,
  ...(offer.rrp === undefined ? {} : { rrp: offer.rrp }),
  status: offer.status,
  ...(offer.minimum_leadtime_days === undefined ? {} : { leadtimeDays: offer.minimum_leadtime_days }),
  stockOnHand: sumStock(offer.seller_warehouse_stock) + sumStock(offer.takealot_warehouse_stock),
  // Only a response with the warehouse expands says where the stock is.
  ...(offer.takealot_warehouse_stock === undefined ? {} : { shipsNow: sumStock(offer.takealot_warehouse_stock) > 0 }),
});

/** `GET /offers/{offer_id}`: one offer, the same fields as a list item. */
export const ownOfferBody = ownOffer.transform(ownOfferSnapshot);

export const offersPageBody = z
  .looseObject({
    items: z.array(ownOffer),
    continuation_token: optional(z.string()),
    count: optional(z.int().nonnegative()),
  })
  .transform((body): OwnOffersPage => {
    const offers = body.items.map(ownOfferSnapshot);
    // An empty token is no token: the caller cross-checks against `count` (the reported page-2 bug).
    const next = body.continuation_token !== undefined && body.continuation_token !== '' ? body.continuation_token : undefined;
    return { offers, ...(next === undefined ? {} : { next }), ...(body.count === undefined ? {} : { count: body.count }) };
  });

const storefrontItem = z.looseObject({
  sku: optional(text().max(200)),
  price: z.number().nonnegative(),
  is_selected: optional(z.boolean()),
  seller: z.looseObject({
    seller_id: id,
    display_name: displayText,
    rating: optional(z.looseObject({ average: optional(z.number().min(0).max(5)), count: optional(z.int().nonnegative()) })),
  }),
  is_takealot: optional(z.boolean()),
  stock_availability: optional(z.looseObject({ status: optional(z.string()), is_leadtime: optional(z.boolean()) })),
});
type StorefrontItem = z.infer<typeof storefrontItem>;

export const productDetailsBody = z.looseObject({
  buybox: optional(z.looseObject({ items: z.array(storefrontItem) })),
  other_offers: optional(z.looseObject({ conditions: z.array(z.looseObject({ items: z.array(storefrontItem) })) })),
});

/** "Ships in 5 - 7 work days" -> 5: the first number of a leadtime offer's wording. */
const leadtimeDaysOf = (status: string | undefined): number | undefined => {
  const match = status === undefined ? null : /(\d+)/.exec(status);
  return match ? Number(match[1]) : undefined;
};

const inStockOf = (item: StorefrontItem): boolean => {
  const availability = item.stock_availability;
  if (availability?.is_leadtime !== undefined) return !availability.is_leadtime;
  return /in stock/i.test(availability?.status ?? '');
};

const marketOffer = (item: StorefrontItem, slots: { bestPrice: boolean; fastestDelivery: boolean }): MarketOffer => {
  const inStock = inStockOf(item);
  const leadtimeDays = inStock ? undefined : leadtimeDaysOf(item.stock_availability?.status);
  const rating = item.seller.rating;
  return {
    sellerId: item.seller.seller_id,
    sellerName: item.seller.display_name,
    ...(item.sku ? { sku: item.sku } : {}),
    price: item.price,
    inStock,
    ...(leadtimeDays === undefined ? {} : { leadtimeDays }),
    ...(rating?.average === undefined ? {} : { ratingAvg: rating.average }),
    ...(rating?.count === undefined ? {} : { ratingCount: rating.count }),
    isMarketplaceItself: item.is_takealot ?? false,
    ...slots,
  };
};

/**
 * The page's offers with the buy-box slots: the selected buy-box item (else the first) holds
 * Best Price; the second item, when there is one, holds Fastest Delivery, else the Best Price
 * item holds both. An offer listed both in the buy box and among the others is counted once.
 */
export const productMarketOf = (productLineId: string, body: z.infer<typeof productDetailsBody>, url?: string): ProductMarket => {
  const boxItems = body.buybox?.items ?? [];
  const bestIndex = Math.max(
    0,
    boxItems.findIndex((item) => item.is_selected === true),
  );
  const fastestIndex = boxItems.length > 1 ? boxItems.findIndex((_, index) => index !== bestIndex) : bestIndex;
  const offers: MarketOffer[] = boxItems.map((item, index) => marketOffer(item, { bestPrice: index === bestIndex, fastestDelivery: index === fastestIndex }));
  const seen = new Set(offers.map((offer) => `${offer.sellerId}#${offer.sku ?? ''}`));
  for (const condition of body.other_offers?.conditions ?? []) {
    for (const item of condition.items) {
      const offer = marketOffer(item, { bestPrice: false, fastestDelivery: false });
      const key = `${offer.sellerId}#${offer.sku ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      offers.push(offer);
    }
  }
  return { productLineId, offers, buyBoxShown: boxItems.length > 0, skipped: 0, ...(url === undefined ? {} : { url }) };
};

export const batchCreatedBody = z.looseObject({ batch_id: id });

/** Batch states as reported in either case (`SUCCESS`, `success`, ...); anything else is malformed. */
const BATCH_STATES: Readonly<Record<string, BatchStatus['state']>> = {
  pending: 'pending',
  processing: 'pending',
  in_progress: 'pending',
  queued: 'pending',
  success: 'succeeded',
  succeeded: 'succeeded',
  completed: 'succeeded',
  failure: 'failed',
  failed: 'failed',
};
const batchState = z
  .string()
  .transform((value) => BATCH_STATES[value.trim().toLowerCase()])
  .pipe(z.enum(['pending', 'succeeded', 'failed']));

const batchResult = z.looseObject({
  offer_id: optional(id),
  sku: optional(z.string()),
  status: z.string(),
  message: optional(z.string()),
});

export const batchStatusBody = z.looseObject({ batch_id: id, status: batchState, results: optional(z.array(batchResult)) }).transform((body): BatchStatus => ({
  batchId: body.batch_id,
  state: body.status,
  results: (body.results ?? []).map((result) => {
    const ok = /^success/i.test(result.status);
    return {
      offerId: result.offer_id ?? result.sku ?? '',
      ok,
      ...(result.message === undefined ? {} : { message: toStorableText(result.message, 500) }),
    };
  }),
}));
