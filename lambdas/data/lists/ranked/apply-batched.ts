import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { batchWrite, type WriteRequest } from '../../table/batch.js';
import { AGAIN, retrying } from '../../table/retry.js';
import { deltasOf, type NodeDelta } from './deltas.js';
import { keyAttributeOf, listingItem, listingKey, placeOfListing, readListingRange, type ListingOrigin } from './listings.js';
import { loadOrder } from './node-loader.js';
import { OrderState } from './order-state.js';
import { placeOf, type ListingPlace, type RankedList } from './ranked-list.js';
import { BUCKET_MAX, BUCKET_TARGET, rebalanceOrder, type EntryReader, type ListedEntry } from './rebalance.js';
import { isConditionFailure } from '../../table/conditions.js';

type Item = Record<string, NativeAttributeValue>;

/** One listed item: its listing item now (if any) and what it should be (if anything). */
export interface Reconciliation<S, R> {
  readonly current?: Item;
  /** `origin`: the key of the canonical item, when it cannot be found from the record. */
  readonly target?: { readonly source: S; readonly record: R; readonly src: string; readonly origin?: ListingOrigin };
}

/**
 * Brings listing items and rank nodes in line with their sources, for a writer that is the
 * only one maintaining this entity's lists for the tenant (the list maintainer, one batch at a
 * time per tenant), unless `shared` (a rebuild of repricers, which requests write meanwhile:
 * then every node write is conditioned on the version read). `seq` identifies the batch: in
 * this order,
 *  1. node counts move (each node once per batch: a replayed batch skips nodes that have `seq`);
 *  2. listing items are written (idempotent);
 *  3. nodes over or under their size are split or merged, from the listing items as written.
 * A batch that fails anywhere is retried whole and ends in the same state.
 */
export const applyBatched = async <S, R>(
  clientId: string,
  list: RankedList<S, R>,
  changes: readonly Reconciliation<S, R>[],
  seq: string,
  options: { readonly force?: boolean; readonly shared?: boolean } = {},
): Promise<number> => {
  const moves = changes.flatMap((change) => {
    const before = change.current ? placeOfListing(list, change.current) : undefined;
    const after = change.target ? placeOf(list, change.target.source) : undefined;
    // Nothing listed and nothing to list (an offer deleted before it was ever listed, or whose product is missing).
    if (!before && !after) return [];
    // A listing already derived from the same source has nothing to do, unless a rebuild rewrites it anyway.
    if (!options.force && before && after && change.current?.src === change.target?.src && before.cell === after.cell) return [];
    return [{ change, before, after }];
  });
  if (moves.length === 0) return 0;

  const byOrder = new Map<string, NodeDelta[]>();
  for (const { before, after } of moves) {
    for (const [order, deltas] of deltasOf(list, before, after)) byOrder.set(order, [...(byOrder.get(order) ?? []), ...deltas]);
  }
  const withHistogram = list.histogramOf !== undefined;
  /** Per order, keys of buckets to split or merge once the listings are written. */
  const unbalanced = new Map<string, string[]>();
  await Promise.all(
    [...byOrder].map(([order, deltas]) =>
      retrying(`Counting ${list.entity} ${order}`, async () => {
        const base = { clientId, tag: list.tag, order };
        const state = new OrderState(
          base,
          await loadOrder(
            base,
            deltas.map((d) => d.key),
            withHistogram,
          ),
        );
        for (const delta of deltas) state.add(delta.key, delta.cell, delta.g, delta.d, seq);
        const outside = state.bucketsOutside(BUCKET_TARGET / 4, BUCKET_MAX).map((bucket) => bucket.lo);
        try {
          await state.flush(!options.shared);
        } catch (error) {
          if (isConditionFailure(error)) return AGAIN;
          throw error;
        }
        if (outside.length > 0) unbalanced.set(order, outside);
        return undefined;
      }),
    ),
  );

  const written = new Map<number, ListingPlace | null>();
  const puts: WriteRequest[] = [];
  const deletes: WriteRequest[] = [];
  for (const { change, before, after } of moves) {
    if (before && (!after || after.cell !== before.cell)) deletes.push({ delete: listingKey(clientId, list, before.cell, before.id) });
    if (after && change.target) puts.push({ put: listingItem(clientId, list, after, change.target.record, change.target.src, change.target.origin) });
    written.set((after ?? before)!.id, after ?? null);
  }
  // The new listings before the old ones go: an item moving to another cell (a price change
  // whose status moved) is listed in one cell or both meanwhile, never in none, so a lookup by
  // id through its listings (data/price-changes/find.ts) finds it at every moment. One batch
  // of both would let DynamoDB apply the delete first.
  await batchWrite(puts);
  await batchWrite(deletes);

  await Promise.all(
    [...unbalanced].map(([order, keys]) =>
      rebalanceOrder({ clientId, tag: list.tag, order }, keys, entryReader(clientId, list, order, written), withHistogram),
    ),
  );
  return moves.length;
};

/**
 * Reads the listing items behind a node, for a split. The id order is the table, read
 * consistently; the others are GSIs, which may not show this batch's writes yet, so the
 * batch's own writes replace what the index says about those items. The counts must then
 * agree with the node's, or the split waits for a later batch.
 */
export const entryReader =
  <S, R>(clientId: string, list: RankedList<S, R>, order: string, written: ReadonlyMap<number, ListingPlace | null> = new Map()): EntryReader =>
  async (lo, hi, expected) => {
    const attribute = keyAttributeOf(list, order);
    const inRange = (key: string) => (lo === '-' || key >= lo) && (hi === undefined || key < hi);
    const entries: ListedEntry[] = [];
    for (const [cell, count] of expected) {
      if (count <= 0) continue;
      const items = await readListingRange(clientId, list, order, cell, {
        ...(lo === '-' ? {} : { from: lo }),
        ...(hi === undefined ? {} : { below: hi }),
        consistent: true,
      });
      for (const item of items) {
        const place = placeOfListing(list, item);
        if (written.has(place.id)) continue;
        entries.push({ key: String(item[attribute]), cell, ...(place.g === undefined ? {} : { g: place.g }) });
      }
    }
    for (const place of written.values()) {
      if (place && expected.has(place.cell) && inRange(place.keys[order]!)) {
        entries.push({ key: place.keys[order]!, cell: place.cell, ...(place.g === undefined ? {} : { g: place.g }) });
      }
    }
    for (const [cell, count] of expected) {
      if (entries.filter((entry) => entry.cell === cell).length !== Math.max(0, count)) return undefined;
    }
    return entries;
  };
