import * as z from 'zod';
import { MARKETPLACE_ITSELF_SELLER_ID, type MarketOffer, type ProductMarket } from '../port.js';
import { displayText, id, lenient, skuText } from './schemas.js';
import { normalizeTakealotSellerId } from './seller-id.js';

/**
 * The storefront's product-details page (docs/takealot.md section 2), read tolerantly: what is
 * known of it is only reported, and a page written by someone else may differ in any field. Only
 * a page whose structure is gone is refused (the adapter throws MarketplaceMalformed); a field of
 * unexpected shape reads as unknown, and an entry without what pricing needs (a seller, a
 * positive price) is left out and counted, never a reason to drop the page. Whether the buy box
 * was seen is stated apart from the offers, so "could not see" never reads as "no rival".
 */

const isPlainObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);
const entries = z.array(z.unknown()).nullish();
/** A condition that is not an object holds no entries; one whose `items` is not a list has lost its structure. */
const condition = z.union([z.looseObject({ items: entries }), z.unknown().refine((value) => !isPlainObject(value))]);

/** The page's structure: only this can make a page malformed. */
export const productDetailsBody = z.looseObject({
  buybox: z.looseObject({ items: entries }).nullish(),
  other_offers: z.looseObject({ conditions: z.array(condition).nullish() }).nullish(),
  seller_detail: z.unknown().optional(),
});
export type ProductDetailsBody = z.infer<typeof productDetailsBody>;

/** A price in rand: a positive number, or text holding one ("199"). */
const price = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^\s*\d+(\.\d+)?\s*$/)
      .transform(Number),
  ])
  .pipe(z.number().positive().finite());

/** A seller's rating: a number, or `{ average, count }`; out of range or of another shape, unknown. */
const rating = z.union([
  z
    .number()
    .min(0)
    .max(5)
    .transform((average) => ({ average, count: undefined })),
  z.looseObject({ average: lenient(z.number().min(0).max(5)), count: lenient(z.int().nonnegative()) }),
]);

const seller = z.looseObject({ seller_id: z.unknown().optional(), display_name: lenient(displayText), rating: lenient(rating) });

const entry = z.looseObject({
  sku: lenient(skuText),
  price: lenient(price),
  is_selected: lenient(z.boolean()),
  seller: lenient(seller),
  sponsored_ads_seller_id: z.unknown().optional(),
  is_takealot: lenient(z.boolean()),
  stock_availability: lenient(z.looseObject({ status: lenient(z.string()), is_leadtime: lenient(z.boolean()) })),
});
type Entry = z.infer<typeof entry>;

const sellerDetail = lenient(z.looseObject({ seller_id: z.unknown().optional(), display_name: lenient(displayText) }));

interface EntrySeller {
  readonly id: string;
  readonly name: string;
}

/**
 * Who offers an entry: its own `seller`; for the selected buy-box item, the page's
 * `seller_detail`; a sponsored item's `sponsored_ads_seller_id`; Takealot itself for its retail
 * offers. Anything else is no seller the service could price against.
 */
const sellerOf = (item: Entry, detail: z.infer<typeof sellerDetail>, selected: boolean): EntrySeller | undefined => {
  const name = item.seller?.display_name;
  const own = normalizeTakealotSellerId(item.seller?.seller_id);
  if (own !== undefined) return { id: own, name: name ?? '' };
  const detailId = selected ? normalizeTakealotSellerId(detail?.seller_id) : undefined;
  if (detailId !== undefined) return { id: detailId, name: detail?.display_name ?? name ?? '' };
  const sponsored = normalizeTakealotSellerId(item.sponsored_ads_seller_id);
  if (sponsored !== undefined) return { id: sponsored, name: name ?? '' };
  if (item.is_takealot === true) return { id: MARKETPLACE_ITSELF_SELLER_ID, name: 'Takealot' };
  return undefined;
};

/** "Ships in 5 - 7 work days" -> 5: the first number of a leadtime offer's wording. */
const leadtimeDaysOf = (status: string | undefined): number | undefined => {
  const match = status === undefined ? null : /(\d+)/.exec(status);
  return match ? Number(match[1]) : undefined;
};

const inStockOf = (item: Entry): boolean => {
  const availability = item.stock_availability;
  if (availability?.is_leadtime !== undefined) return !availability.is_leadtime;
  return /in stock/i.test(availability?.status ?? '');
};

interface Slots {
  readonly bestPrice: boolean;
  readonly fastestDelivery: boolean;
  /** The buy-box item the page's `seller_detail` speaks of. */
  readonly selected: boolean;
}

/** The entry as a market offer, or undefined when it lacks a seller or a positive price. */
const marketOffer = (raw: unknown, detail: z.infer<typeof sellerDetail>, slots: Slots): MarketOffer | undefined => {
  const parsed = entry.safeParse(raw);
  if (!parsed.success) return undefined;
  const item = parsed.data;
  const who = sellerOf(item, detail, slots.selected);
  if (who === undefined || item.price === undefined) return undefined;
  const inStock = inStockOf(item);
  const leadtimeDays = inStock ? undefined : leadtimeDaysOf(item.stock_availability?.status);
  const itemRating = item.seller?.rating;
  return {
    sellerId: who.id,
    sellerName: who.name,
    ...(item.sku === undefined ? {} : { sku: item.sku }),
    price: item.price,
    inStock,
    ...(leadtimeDays === undefined ? {} : { leadtimeDays }),
    ...(itemRating?.average === undefined ? {} : { ratingAvg: itemRating.average }),
    ...(itemRating?.count === undefined ? {} : { ratingCount: itemRating.count }),
    isMarketplaceItself: item.is_takealot === true,
    bestPrice: slots.bestPrice,
    fastestDelivery: slots.fastestDelivery,
  };
};

const selectedIndexOf = (items: readonly unknown[]): number =>
  Math.max(
    0,
    items.findIndex((item) => isPlainObject(item) && (item as { is_selected?: unknown }).is_selected === true),
  );

const offerKey = (offer: MarketOffer): string => `${offer.sellerId}#${offer.sku ?? ''}`;

const variantId = lenient(id);

/**
 * Whether the page offers a choice of variants: `variants.selectors` a list with at least one
 * selector. A `selectors` of another shape cannot rule variants out, so it counts as a choice
 * (the variant shown must then be named to be believed).
 */
const multiVariantOf = (body: ProductDetailsBody): boolean => {
  const variants = (body as { variants?: unknown }).variants;
  if (!isPlainObject(variants)) return false;
  const selectors = (variants as { selectors?: unknown }).selectors;
  if (selectors === undefined || selectors === null) return false;
  return !Array.isArray(selectors) || selectors.length > 0;
};

/**
 * The page's offers with the buy-box slots: the selected buy-box item (else the first) holds
 * Best Price; the second item, when there is one, holds Fastest Delivery, else the Best Price
 * item holds both. Slots follow the items as the page lists them, so an item left out takes its
 * slot with it (no other item is credited with it). An offer listed both in the buy box and
 * among the others is counted once. The page's offers are those of the variant its buy box names
 * (`buybox.tsin`); a page of several variants (`variants.selectors[].options[]`) says so.
 */
export const productMarketOf = (productLineId: string, body: ProductDetailsBody, url?: string): ProductMarket => {
  const boxItems = body.buybox?.items ?? [];
  const detail = sellerDetail.parse(body.seller_detail);
  const bestIndex = selectedIndexOf(boxItems);
  const fastestIndex = boxItems.length > 1 ? boxItems.findIndex((_, index) => index !== bestIndex) : bestIndex;
  const offers: MarketOffer[] = [];
  let skipped = 0;
  boxItems.forEach((raw, index) => {
    const offer = marketOffer(raw, detail, { bestPrice: index === bestIndex, fastestDelivery: index === fastestIndex, selected: index === bestIndex });
    if (offer === undefined) skipped += 1;
    else offers.push(offer);
  });
  const buyBoxShown = offers.length > 0;
  const seen = new Set(offers.map(offerKey));
  const others = { bestPrice: false, fastestDelivery: false, selected: false };
  for (const group of body.other_offers?.conditions ?? []) {
    const items = isPlainObject(group) ? ((group as { items?: readonly unknown[] | null }).items ?? []) : [];
    for (const raw of items) {
      const offer = marketOffer(raw, detail, others);
      if (offer === undefined) {
        skipped += 1;
        continue;
      }
      if (seen.has(offerKey(offer))) continue;
      seen.add(offerKey(offer));
      offers.push(offer);
    }
  }
  // The buy box's own tsin names the variant shown; a page that showed no buy box showed no variant.
  const shown = buyBoxShown ? variantId.parse((body.buybox as { tsin?: unknown } | null | undefined)?.tsin) : undefined;
  return {
    productLineId,
    offers,
    buyBoxShown,
    skipped,
    ...(url === undefined ? {} : { url }),
    ...(shown === undefined ? {} : { variantId: shown }),
    ...(multiVariantOf(body) ? { multiVariant: true } : {}),
  };
};
