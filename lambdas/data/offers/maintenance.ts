import { UpdateCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { logger } from '../../observability/logger.js';
import { batchGet } from '../table/batch.js';
import { mapLimit } from '../table/concurrency.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { readPartition } from '../table/partition.js';
import { offerKey, offerLookupKey, OFFER_SK_PREFIX, productKey, productPartition } from '../table/keys.js';
import { OFFER_LIST, offerRecordOf, offerSourceDigest, storedOffer, type StoredOffer } from './list.js';
import { readLookups } from './write.js';
import { storedProduct } from './products.js';
import { applyBatched, type Reconciliation } from '../lists/ranked/apply-batched.js';
import { listingKey, placeOfListing } from '../lists/ranked/listings.js';
import type { Offer } from '../../domain/records.js';

type Item = Record<string, NativeAttributeValue>;

/**
 * Derives offer listings and counts from canonical offers: the list maintainer's work for one
 * batch of changes of one tenant. The batch names offers that may have changed; what they
 * became is read from the table, so a change delivered twice, late or out of order leaves the
 * same result as one delivered once.
 */
export interface OfferHint {
  readonly offerId: string;
  readonly productCode: string;
  readonly id?: number;
  /** Cells the offer was seen in by the change that named it. */
  readonly cells: readonly string[];
}

type Change = Reconciliation<StoredOffer, Offer>;

export const reconcileOffers = async (
  clientId: string,
  hints: readonly OfferHint[],
  seq: string,
  options: { readonly force?: boolean } = {},
): Promise<number> => {
  if (hints.length === 0) return 0;
  const lookups = await readLookups(
    clientId,
    hints.map((hint) => hint.offerId),
  );
  const productOf = (hint: OfferHint) => lookups.get(hint.offerId)?.productCode ?? hint.productCode;
  const canonicals = new Map(
    (await batchGet(hints.map((hint) => offerKey(clientId, productOf(hint), hint.offerId)))).map((item) => {
      const offer = storedOffer.parse(item);
      return [offer.fields.offer_id, offer] as const;
    }),
  );
  const products = new Map(
    (await batchGet([...new Set([...canonicals.values()].map((offer) => offer.product_code))].map((code) => productKey(clientId, code)))).map((item) => {
      const product = storedProduct.parse(item).record;
      return [product.code, product] as const;
    }),
  );

  const targets = new Map<string, { source: StoredOffer; record: Offer; src: string }>();
  for (const [offerId, offer] of canonicals) {
    const product = products.get(offer.product_code);
    if (!product) {
      logger.warn('Offer names a product that does not exist; it is not listed', { productCode: offer.product_code });
      continue;
    }
    targets.set(offerId, { source: offer, record: offerRecordOf(offer, product), src: offerSourceDigest(offer, product) });
  }

  // Every cell the listing may be in: where it was placed, where the change saw it, where it goes.
  const candidates = new Map<string, { id: number; cells: Set<string> }>();
  for (const hint of hints) {
    const lookup = lookups.get(hint.offerId);
    const target = targets.get(hint.offerId);
    const id = lookup?.id ?? target?.source.id ?? hint.id;
    if (id === undefined) continue;
    const cells = new Set([...hint.cells, ...(lookup?.listedCell ? [lookup.listedCell] : []), ...(target ? [OFFER_LIST.cellOf(target.source)] : [])]);
    candidates.set(hint.offerId, { id, cells });
  }
  const listed = await batchGet([...candidates.values()].flatMap(({ id, cells }) => [...cells].map((cell) => listingKey(clientId, OFFER_LIST, cell, id))));
  const listingsById = new Map<number, Item[]>();
  for (const item of listed) {
    const place = placeOfListing(OFFER_LIST, item);
    listingsById.set(place.id, [...(listingsById.get(place.id) ?? []), item]);
  }

  const changes: Change[] = [];
  const placed: { offerId: string; cell: string | undefined; was: string | undefined }[] = [];
  for (const [offerId, { id }] of candidates) {
    const target = targets.get(offerId);
    const targetCell = target ? OFFER_LIST.cellOf(target.source) : undefined;
    const current = listingsById.get(id) ?? [];
    const keep = current.find((item) => item.cell === targetCell) ?? current[0];
    for (const extra of current) if (extra !== keep) changes.push({ current: extra });
    changes.push({ ...(keep ? { current: keep } : {}), ...(target ? { target } : {}) });
    placed.push({ offerId, cell: targetCell, was: lookups.get(offerId)?.listedCell });
  }
  const moved = await applyBatched(clientId, OFFER_LIST, changes, seq, options);

  await mapLimit(
    placed.filter(({ offerId, cell, was }) => lookups.has(offerId) && cell !== was),
    ({ offerId, cell }) =>
      documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: offerLookupKey(clientId, offerId),
          UpdateExpression: cell === undefined ? 'REMOVE listedCell' : 'SET listedCell = :cell',
          ...(cell === undefined ? {} : { ExpressionAttributeValues: { ':cell': cell } }),
        }),
      ),
  );
  return moved;
};

/** The offers of a product, read consistently: after a product change, each listing gets the new copy. */
export const offersOfProduct = async (clientId: string, code: string): Promise<StoredOffer[]> =>
  (await readPartition(productPartition(clientId, code), { prefix: OFFER_SK_PREFIX })).map((item) => storedOffer.parse(item));

export const hintOf = (offer: StoredOffer): OfferHint => ({
  offerId: offer.fields.offer_id,
  productCode: offer.product_code,
  id: offer.id,
  cells: [OFFER_LIST.cellOf(offer)],
});

/**
 * Everything one batch names, reconciled in one pass (one pass per batch: a node counts a batch
 * once): the offers, and every offer of the products that changed, whose listings carry a copy
 * of the product.
 */
export const reconcileBatch = async (clientId: string, batch: { offers: readonly OfferHint[]; products: readonly string[] }, seq: string): Promise<number> => {
  const ofProducts = (await Promise.all(batch.products.map((code) => offersOfProduct(clientId, code)))).flat().map(hintOf);
  const hints = new Map<string, OfferHint>();
  for (const hint of [...batch.offers, ...ofProducts]) {
    const known = hints.get(hint.offerId);
    hints.set(hint.offerId, known ? { ...known, cells: [...new Set([...known.cells, ...hint.cells])] } : hint);
  }
  return reconcileOffers(clientId, [...hints.values()], seq);
};
