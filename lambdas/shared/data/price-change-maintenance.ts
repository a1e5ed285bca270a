import { batchGet } from './batch.js';
import type { PriceChangeHint } from './change-records.js';
import { priceChangePartition } from './keys.js';
import {
  PRICE_CHANGE_LIST,
  priceChangeSourceDigest,
  PRODUCT_PRICE_CHANGE_LIST,
  productChangeCell,
  productScope,
  storedPriceChange,
  type StoredPriceChange,
} from './price-change-list.js';
import { applyBatched, type Reconciliation } from './ranked/apply-batched.js';
import { listingKey } from './ranked/listings.js';
import type { PriceChange } from '../domain/records.js';

/**
 * Derives the two price-change lists (the tenant's and each product's) from the canonical
 * price changes: a new one is listed, one that expired (TTL) or was deleted is unlisted. Like
 * offers, from the current state, so a change delivered twice or late changes nothing.
 */
type Change = Reconciliation<StoredPriceChange, PriceChange>;

export const reconcilePriceChanges = async (
  clientId: string,
  hints: readonly PriceChangeHint[],
  seq: string,
  options: { readonly force?: boolean } = {},
): Promise<number> => {
  if (hints.length === 0) return 0;
  const canonical = new Map(
    (await batchGet(hints.map((hint) => ({ pk: priceChangePartition(clientId, hint.productCode), sk: hint.sk })))).map((item) => [
      String(item.sk),
      storedPriceChange.parse(item),
    ]),
  );
  const tenantListed = new Map(
    (await batchGet(hints.map((hint) => listingKey(clientId, PRICE_CHANGE_LIST, hint.reason, hint.id)))).map((item) => [String(item.sk), item]),
  );
  const productListed = new Map(
    (
      await batchGet(
        hints.map((hint) =>
          listingKey(productScope(clientId, hint.productCode), PRODUCT_PRICE_CHANGE_LIST, productChangeCell(hint.repricerId, hint.reason), hint.id),
        ),
      )
    ).map((item) => [`${String(item.pk)}|${String(item.sk)}`, item]),
  );

  const tenantChanges: Change[] = [];
  const productChanges = new Map<string, Change[]>();
  for (const hint of hints) {
    const stored = canonical.get(hint.sk);
    const origin = { pk: priceChangePartition(clientId, hint.productCode), sk: hint.sk };
    const target = stored ? { source: stored, record: stored.record, src: priceChangeSourceDigest(stored), origin } : undefined;
    const tenantKey = listingKey(clientId, PRICE_CHANGE_LIST, hint.reason, hint.id);
    const tenantCurrent = tenantListed.get(tenantKey.sk);
    tenantChanges.push({ ...(tenantCurrent ? { current: tenantCurrent } : {}), ...(target ? { target } : {}) });
    const scope = productScope(clientId, hint.productCode);
    const productKey = listingKey(scope, PRODUCT_PRICE_CHANGE_LIST, productChangeCell(hint.repricerId, hint.reason), hint.id);
    const productCurrent = productListed.get(`${productKey.pk}|${productKey.sk}`);
    productChanges.set(scope, [
      ...(productChanges.get(scope) ?? []),
      { ...(productCurrent ? { current: productCurrent } : {}), ...(target ? { target } : {}) },
    ]);
  }
  let moved = await applyBatched(clientId, PRICE_CHANGE_LIST, tenantChanges, seq, options);
  for (const [scope, changes] of productChanges) moved += await applyBatched(scope, PRODUCT_PRICE_CHANGE_LIST, changes, seq, options);
  return moved;
};
