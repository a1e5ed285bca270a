import * as z from 'zod';
import { DEFAULT_IN_STOCK_PREMIUM, inStockPremium, type InStockPremium } from './in-stock-premium.js';
import { connectorUid, productRecord, type Product } from './records.js';

/**
 * `GET /v1/products/{code}`: the product record, and what the service has learned of it on each
 * marketplace. Only this route shows it: the product nested in offers and repricers stays the
 * interface's record.
 */
export const productDetailRecord = productRecord.extend({
  /** By connector uid: every connector the client has a connection on, and any the premium was learned on before. */
  in_stock_premium: z.record(connectorUid, inStockPremium),
});
export type ProductDetail = z.infer<typeof productDetailRecord>;

/** The product with its premium on each connector: as learned, else the stated default (observations 0). */
export const productDetailOf = (product: Product, learned: ReadonlyMap<string, InStockPremium>, connections: readonly string[]): ProductDetail => {
  const connectors = [...new Set([...connections, ...learned.keys()])].sort();
  return { ...product, in_stock_premium: Object.fromEntries(connectors.map((uid) => [uid, learned.get(uid) ?? DEFAULT_IN_STOCK_PREMIUM])) };
};
