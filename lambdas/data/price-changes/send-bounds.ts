import { batchGet, keyString } from '../table/batch.js';
import { productKey, repricerSlotKey } from '../table/keys.js';
import { storedProduct } from '../offers/products.js';
import { priceStepOf } from '../connections/connectors.js';
import { repricerSlot } from '../repricers/slots.js';
import type { SendBounds } from '../../domain/price-push.js';

/**
 * The one reader of what a price is checked against (the sender's guard, just before a push):
 * the repricer's floor and ceiling (the connector's repricer slot on the product), the product's
 * rrp and the connector's price step, as they are at that moment (consistent reads). Two small
 * items per product, read together for every product of a batch (100 keys a call), never a
 * product's whole partition: a batch of 1,000 prices costs 20 calls, not 1,000.
 */
export interface ProductBounds {
  /** The repricer the slot belongs to: a price decided by another (deleted, replaced) has no bounds. */
  readonly repricerId: number;
  readonly bounds: SendBounds;
}

/** The bounds of each product named; a product that is gone, or has no repricer on the connector, is missing from the map. */
export const readSendBounds = async (clientId: string, connector: string, codes: readonly string[]): Promise<Map<string, ProductBounds>> => {
  const unique = [...new Set(codes)];
  const keys = unique.flatMap((code) => [productKey(clientId, code), repricerSlotKey(clientId, code, connector)]);
  const [items, step] = await Promise.all([batchGet(keys), priceStepOf(connector)]);
  const found = new Map(items.map((item) => [keyString({ pk: item.pk, sk: item.sk }), item]));
  const bounds = new Map<string, ProductBounds>();
  for (const code of unique) {
    const product = found.get(keyString(productKey(clientId, code)));
    const stored = found.get(keyString(repricerSlotKey(clientId, code, connector)));
    if (!product || !stored) continue;
    const slot = repricerSlot.parse(stored);
    const retail = storedProduct.parse(product).record.retail_price;
    bounds.set(code, {
      repricerId: slot.repricerId,
      bounds: { min_price: slot.min_price, preferred_price: slot.preferred_price, rrp: retail > 0 ? retail : undefined, step },
    });
  }
  return bounds;
};
