import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../table/batch.js';
import { priceChangePartition, productScope } from '../table/keys.js';
import { PRICE_CHANGE_LIST, priceChangeSourceDigest, PRODUCT_PRICE_CHANGE_LIST, productChangeCell, storedPriceChange, type StoredPriceChange } from './list.js';
import { applyBatched, type Reconciliation } from '../lists/ranked/apply-batched.js';
import { listingKey, type ListingOrigin } from '../lists/ranked/listings.js';
import type { RankedList } from '../lists/ranked/ranked-list.js';
import type { PriceChange } from '../../domain/records.js';

/** A price change the change stream showed (data/stream/records.ts): what its listings need. */
export interface PriceChangeHint {
  readonly productCode: string;
  readonly sk: string;
  readonly id: number;
  readonly repricerId: number;
  /** The tenant-list cells the item was in before this change and is in after it (its status may have moved). */
  readonly cells: readonly string[];
}

/**
 * Derives the two price-change lists (the tenant's and each product's) from the canonical
 * price changes: a new one is listed, one whose status moved is moved to its new cell, one
 * that expired (TTL) or was deleted is unlisted. Like offers, from the current state, so a
 * change delivered twice or late changes nothing: the hint only names the cells to look in.
 */
type Change = Reconciliation<StoredPriceChange, PriceChange>;
type Item = Record<string, NativeAttributeValue>;
type Target = NonNullable<Change['target']>;

interface Candidate {
  readonly scope: string;
  readonly id: number;
  readonly cells: ReadonlySet<string>;
  readonly target: Target | undefined;
  readonly targetCell: string | undefined;
}

/** The changes that leave one listing of each candidate, in its target's cell, and none elsewhere. */
const changesOf = async (list: RankedList<StoredPriceChange, PriceChange>, candidates: readonly Candidate[]): Promise<Map<string, Change[]>> => {
  const keyed = candidates.map((candidate) => ({
    candidate,
    keys: [...candidate.cells].map((cell) => listingKey(candidate.scope, list, cell, candidate.id)),
  }));
  const listed = new Map((await batchGet(keyed.flatMap(({ keys }) => keys))).map((item): [string, Item] => [`${String(item.pk)}|${String(item.sk)}`, item]));
  const byScope = new Map<string, Change[]>();
  for (const { candidate, keys } of keyed) {
    const current = keys.flatMap((key): Item[] => {
      const item = listed.get(`${key.pk}|${key.sk}`);
      return item ? [item] : [];
    });
    const keep = current.find((item) => item.cell === candidate.targetCell) ?? current[0];
    const changes = byScope.get(candidate.scope) ?? [];
    for (const extra of current) if (extra !== keep) changes.push({ current: extra });
    if (keep || candidate.target) changes.push({ ...(keep ? { current: keep } : {}), ...(candidate.target ? { target: candidate.target } : {}) });
    byScope.set(candidate.scope, changes);
  }
  return byScope;
};

/** One hint per price change: a batch may hold its creation and a status move (each node counts it once). */
const mergedHints = (hints: readonly PriceChangeHint[]): PriceChangeHint[] => {
  const merged = new Map<string, PriceChangeHint>();
  for (const hint of hints) {
    const key = `${hint.productCode}|${hint.sk}`;
    const known = merged.get(key);
    merged.set(key, known ? { ...known, cells: [...new Set([...known.cells, ...hint.cells])] } : hint);
  }
  return [...merged.values()];
};

export const reconcilePriceChanges = async (
  clientId: string,
  hints: readonly PriceChangeHint[],
  seq: string,
  options: { readonly force?: boolean } = {},
): Promise<number> => {
  if (hints.length === 0) return 0;
  const unique = mergedHints(hints);
  const canonical = new Map(
    (await batchGet(unique.map((hint) => ({ pk: priceChangePartition(clientId, hint.productCode), sk: hint.sk })))).map((item) => [
      `${String(item.pk)}|${String(item.sk)}`,
      storedPriceChange.parse(item),
    ]),
  );

  const tenant: Candidate[] = [];
  const products: Candidate[] = [];
  for (const hint of unique) {
    const origin: ListingOrigin = { pk: priceChangePartition(clientId, hint.productCode), sk: hint.sk };
    const stored = canonical.get(`${origin.pk}|${origin.sk}`);
    const target = stored ? { source: stored, record: stored.record, src: priceChangeSourceDigest(stored), origin } : undefined;
    // Where it may be listed: the cells the change saw it in, and where it belongs now.
    const tenantCell = stored ? PRICE_CHANGE_LIST.cellOf(stored) : undefined;
    const tenantCells = new Set([...hint.cells, ...(tenantCell === undefined ? [] : [tenantCell])]);
    tenant.push({ scope: clientId, id: hint.id, cells: tenantCells, target, targetCell: tenantCell });
    products.push({
      scope: productScope(clientId, hint.productCode),
      id: hint.id,
      cells: new Set([...tenantCells].map((cell) => productChangeCell(hint.repricerId, cell))),
      target,
      targetCell: stored ? PRODUCT_PRICE_CHANGE_LIST.cellOf(stored) : undefined,
    });
  }

  let moved = 0;
  for (const [scope, changes] of await changesOf(PRICE_CHANGE_LIST, tenant)) moved += await applyBatched(scope, PRICE_CHANGE_LIST, changes, seq, options);
  for (const [scope, changes] of await changesOf(PRODUCT_PRICE_CHANGE_LIST, products)) {
    moved += await applyBatched(scope, PRODUCT_PRICE_CHANGE_LIST, changes, seq, options);
  }
  return moved;
};
