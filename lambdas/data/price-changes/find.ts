import { batchGet } from '../table/batch.js';
import { PRICE_CHANGE_CELLS, PRICE_CHANGE_LIST } from './list.js';
import { readSendable, transitionPriceChange, type PriceChangeRef, type StoredSendable } from './status.js';
import { listingKey, originOfListing } from '../lists/ranked/listings.js';
import type { PriceChange, PriceChangeStatus } from '../../domain/records.js';
import { priceChangePartition } from '../table/keys.js';

/**
 * A client's price change by id. The canonical item's key names the product, repricer and
 * offer, not the id; the tenant list's listing of that id does (its `origin`), in one of a few
 * cells (a status and a reason, or a legacy reason alone), so one BatchGet of those keys finds
 * it, and a consistent read of the canonical item gives its state now. Only the client's own
 * list is read: another client's id finds nothing. A price change the maintainer has not
 * listed yet (a moment after its decision) is not found yet; once listed it is found at every
 * moment, since a move to another cell writes the new listing before it deletes the old
 * (lists/ranked/apply-batched.ts).
 */
export const findPriceChange = async (clientId: string, id: number): Promise<StoredSendable | undefined> => {
  const listings = await batchGet(
    PRICE_CHANGE_CELLS.map((cell) => listingKey(clientId, PRICE_CHANGE_LIST, cell, id)),
    false,
  );
  for (const listing of listings) {
    const origin = originOfListing(listing);
    const ref = origin ? refOfOrigin(clientId, origin) : undefined;
    if (!ref) continue;
    const found = await readSendable(clientId, ref);
    if (found?.stored.record.id === id) return found;
  }
  return undefined;
};

/** The reference of a canonical key, when it is one of this client's price changes. */
const refOfOrigin = (clientId: string, origin: { readonly pk: string; readonly sk: string }): PriceChangeRef | undefined => {
  const prefix = priceChangePartition(clientId, '');
  if (!origin.pk.startsWith(prefix)) return undefined;
  try {
    return { productCode: decodeURIComponent(origin.pk.slice(prefix.length)), sk: origin.sk };
  } catch {
    return undefined;
  }
};

export type ApplyOutcome =
  | { readonly kind: 'applied'; readonly record: PriceChange }
  | { readonly kind: 'notFound' }
  | { readonly kind: 'notSuggested'; readonly status: PriceChangeStatus };

/**
 * The client's apply of a suggestion: `suggested` becomes `pending`, marked as requested so
 * the sender sends it whatever the connection's mode. The move is conditional on the status,
 * so an apply racing another apply or the sender moves it once; the loser is told the status
 * the price change has now.
 */
export const applyPriceChange = async (clientId: string, id: number, now: string): Promise<ApplyOutcome> => {
  const found = await findPriceChange(clientId, id);
  if (!found) return { kind: 'notFound' };
  const moved = await transitionPriceChange(clientId, found.ref, {
    from: ['suggested'],
    to: 'pending',
    sender: { requested: true },
    fields: { status_reason: null },
    now,
  });
  if (moved) return { kind: 'applied', record: moved };
  const after = await readSendable(clientId, found.ref);
  return after ? { kind: 'notSuggested', status: after.stored.record.status } : { kind: 'notFound' };
};
