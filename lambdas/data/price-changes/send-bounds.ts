import { batchGet, keyString } from '../table/batch.js';
import { productKey, repricerSlotKey } from '../table/keys.js';
import { storedProduct } from '../offers/products.js';
import { repricerSlot, type RepricerSlot } from '../repricers/slots.js';

/**
 * What a price is checked against just before each push attempt: the repricer slot of the
 * connector on the product (the repricer's floor and ceiling) and the product's rrp, as they are
 * at that moment (consistent reads). Two small items per product, read together for every
 * product of a batch (100 keys a call), never a product's whole partition: a batch of 1,000
 * prices costs 20 calls per attempt, not 1,000.
 */
export interface ProductBounds {
  /** Undefined when the product has no repricer on the connector (it was deleted). */
  readonly slot: RepricerSlot | undefined;
  /** The product's `retail_price` (the marketplace's rrp, as the own-offer sync keeps it); undefined when not set. */
  readonly rrp: number | undefined;
}

/** The bounds of each product named; a product that is gone is missing from the map. */
export const readProductBounds = async (clientId: string, connector: string, codes: readonly string[]): Promise<Map<string, ProductBounds>> => {
  const unique = [...new Set(codes)];
  const keys = unique.flatMap((code) => [productKey(clientId, code), repricerSlotKey(clientId, code, connector)]);
  const found = new Map((await batchGet(keys)).map((item) => [keyString({ pk: item.pk, sk: item.sk }), item]));
  const bounds = new Map<string, ProductBounds>();
  for (const code of unique) {
    const product = found.get(keyString(productKey(clientId, code)));
    if (!product) continue;
    const slot = found.get(keyString(repricerSlotKey(clientId, code, connector)));
    const retail = storedProduct.parse(product).record.retail_price;
    bounds.set(code, { slot: slot ? repricerSlot.parse(slot) : undefined, rrp: retail > 0 ? retail : undefined });
  }
  return bounds;
};
