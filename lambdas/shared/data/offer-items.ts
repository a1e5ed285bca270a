import * as z from 'zod';
import { offerFields, offerRecord, productCode, timestamp, type Offer, type Product } from '../domain/records.js';
import { offerKey, offerViewPartition, productOfferKey } from './keys.js';
import { idKey, sortKeyOf, SORT_STORAGE, viewsOf } from './offer-keys.js';
import { OFFER_SORT_FIELDS } from '../domain/offer-query.js';

/**
 * Item shapes of the offer entity. The canonical item (found by marketplace offer id) holds
 * the offer's own fields; each view item holds the whole API record, product included, so a
 * page is one Query; the product-membership item lets a product change reach its offers.
 */
export const storedOffer = z.object({
  entity: z.literal('offer'),
  id: z.int().positive(),
  product_code: productCode,
  fields: offerFields,
  created_at: timestamp,
  updated_at: timestamp,
  version: z.int().positive(),
});
export type StoredOffer = z.infer<typeof storedOffer>;

export const storedOfferView = z.object({ record: offerRecord });
export const storedMembership = z.object({ views: z.array(z.string()), offerId: z.string() });

export const toOffer = (item: Record<string, unknown>): Offer => storedOfferView.parse(item).record;

export const canonicalItem = (clientId: string, offer: StoredOffer) => ({
  ...offerKey(clientId, offer.fields.offer_id),
  ...offer,
});

export const offerRecordOf = (offer: StoredOffer, product: Product): Offer => ({
  id: offer.id,
  ...offer.fields,
  product,
  created_at: offer.created_at,
  updated_at: offer.updated_at,
});

/** The view items of an offer: the same record under each view partition, keyed for each sort. */
export const viewItems = (clientId: string, record: Offer, ownSellerId: string) =>
  viewsOf(record, ownSellerId).map((view) => {
    // One attribute per sort order; the GSIs and LSIs of that order both key on it.
    const sortAttributes = Object.fromEntries(
      OFFER_SORT_FIELDS.map((field) => [SORT_STORAGE[field].rankAttribute, sortKeyOf(record, field)]),
    );
    return { view, item: { pk: offerViewPartition(clientId, view), sk: idKey(record.id), entity: 'offerView', ...sortAttributes, record } };
  });

export const membershipItem = (clientId: string, offer: StoredOffer, views: string[]) => ({
  ...productOfferKey(clientId, offer.product_code, idKey(offer.id)),
  entity: 'productOffer',
  offerId: offer.fields.offer_id,
  views,
});
