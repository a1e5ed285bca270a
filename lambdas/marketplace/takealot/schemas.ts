import * as z from 'zod';
import { text, toStorableText } from '../../domain/text.js';
import type { OwnOfferSnapshot, OwnOffersPage } from '../port.js';

/**
 * Takealot's seller API payloads (docs/takealot.md section 1) and their mapping to the port's
 * types, with the readers the storefront page and the batch status share. Where a form is only
 * reported, both are accepted: ids as numbers or strings, absent fields as missing or null. A
 * list is read item by item: one item that cannot be read is left out and counted, never a
 * reason to drop the others (a page with skipped items says so, and is not the whole list).
 */

/** Ids arrive as numbers (offer_id, productline_id, seller_id) or strings: kept as decimal text. */
export const id = z.union([z.int().nonnegative(), text().min(1).max(100)]).transform(String);
/** Whole rand (confirmed for selling_price and rrp). */
const rand = z.int().nonnegative();
/** Display text: kept whatever it holds, made storable. */
export const displayText = z.string().transform((value) => toStorableText(value, 500));
/** A field of unexpected shape reads as unknown (undefined): never a reason to refuse what holds it. */
export const lenient = <S extends z.ZodType>(schema: S) => schema.optional().catch(undefined);
/** A SKU as text or as a number (storefront entries and batch results carry either). */
export const skuText = z.union([text().min(1).max(200), z.int().nonnegative().transform(String)]);

const warehouseStock = z.array(z.looseObject({ quantity_available: z.number().nonnegative() }));

/** What an own offer cannot go without (id, SKU, price, status, title); the rest reads as unknown when ill-typed. */
const ownOffer = z.looseObject({
  offer_id: id,
  sku: skuText,
  barcode: lenient(text().max(200)),
  title: displayText,
  productline_id: lenient(id),
  tsin_id: lenient(id),
  selling_price: rand,
  rrp: lenient(rand),
  status: text().min(1).max(100),
  minimum_leadtime_days: lenient(z.int().nonnegative()),
  seller_warehouse_stock: lenient(warehouseStock),
  takealot_warehouse_stock: lenient(warehouseStock),
});

const sumStock = (stock: readonly { quantity_available: number }[] | undefined): number =>
  (stock ?? []).reduce((sum, entry) => sum + entry.quantity_available, 0);

const ownOfferSnapshot = (offer: z.infer<typeof ownOffer>): OwnOfferSnapshot => ({
  offerId: offer.offer_id,
  sku: offer.sku,
  ...(offer.barcode ? { barcode: offer.barcode } : {}),
  title: offer.title,
  ...(offer.productline_id === undefined ? {} : { productLineId: offer.productline_id }),
  ...(offer.tsin_id === undefined ? {} : { variantId: offer.tsin_id }),
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

/** The list's structure is required (`items` a list); each item is read on its own. */
export const offersPageBody = z
  .looseObject({
    items: z.array(z.unknown()),
    continuation_token: lenient(z.string()),
    count: lenient(z.int().nonnegative()),
  })
  .transform((body): OwnOffersPage => {
    const offers: OwnOfferSnapshot[] = [];
    let skipped = 0;
    for (const item of body.items) {
      const parsed = ownOfferBody.safeParse(item);
      if (parsed.success) offers.push(parsed.data);
      else skipped += 1;
    }
    // An empty token is no token: the caller cross-checks against `count` (the reported page-2 bug).
    const next = body.continuation_token !== undefined && body.continuation_token !== '' ? body.continuation_token : undefined;
    return { offers, skipped, ...(next === undefined ? {} : { next }), ...(body.count === undefined ? {} : { count: body.count }) };
  });

export const batchCreatedBody = z.looseObject({ batch_id: id });
