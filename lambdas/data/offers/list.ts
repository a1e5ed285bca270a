import { createHash } from 'node:crypto';
import * as z from 'zod';
import { connectorUid, offerFields, offerRecord, productCode, timestamp, type Offer, type Product } from '../../domain/records.js';
import { LISTING_INDEXES } from '../../config/table-schema.js';
import { part } from '../table/keys.js';
import { PRODUCT_TEMPLATE } from '../lists/product-template.js';
import { dictionaryOf, recordCodec } from '../lists/ranked/record-codec.js';
import type { RankedList } from '../lists/ranked/ranked-list.js';
import { competitorsKey, competitorsPrefix, idKey, priceKey, timeKey } from '../table/sort-keys.js';

/**
 * The offer entity, declared once: the canonical item (what imports write, under its product)
 * and how offers are listed, counted and sorted (docs/data-model.md).
 */
export const OFFER_SCHEMA_VERSION = 1;

export const storedOffer = z.object({
  entity: z.literal('offer'),
  sv: z.literal(OFFER_SCHEMA_VERSION),
  id: z.int().positive(),
  product_code: productCode,
  /** The connector the offer is sold on: the import line's, or the client's default. */
  connector: connectorUid,
  /** Whether the seller is the client itself, fixed when the offer is written. */
  scope: z.enum(['own', 'other']),
  fields: offerFields,
  created_at: timestamp,
  updated_at: timestamp,
  /**
   * When its writer saw the offer at `offer_price` (the sync's or import's own time, never later):
   * set when the price is written anew, kept by writes of other fields (a storefront read's buy
   * box), so the sender can tell a price it confirmed since from a synced one (data/repricing/inputs.ts
   * ownPriceNow). Absent on items written before it: their `updated_at` stands for it.
   */
  price_at: timestamp.optional(),
});
export type StoredOffer = z.infer<typeof storedOffer>;

export const offerRecordOf = (offer: StoredOffer, product: Product): Offer => ({
  id: offer.id,
  ...offer.fields,
  product,
  created_at: offer.created_at,
  updated_at: offer.updated_at,
});

/** The cell of an offer: own or another seller's, and its competitiveness, the two filters no read may pay for per skipped offer. */
export const offerCell = (scope: 'own' | 'other', competitiveness: string) => `${scope}|${part(competitiveness)}`;
export const cellScope = (cell: string) => cell.slice(0, cell.indexOf('|'));
export const cellCompetitiveness = (cell: string) => decodeURIComponent(cell.slice(cell.indexOf('|') + 1));

/** What a listing was derived from: the canonical offer and its product. */
export const offerSourceDigest = (offer: StoredOffer, product: Product): string =>
  createHash('sha256')
    .update(JSON.stringify([offer, product]))
    .digest('base64url')
    .slice(0, 16);

const template: Offer = {
  id: 0,
  offer_id: '',
  offer_price: 0,
  offer_status: 'buyable',
  stock_status: 'in_stock',
  competitiveness: 'high',
  total_competitors: 0,
  winning: false,
  winning_delivery: false,
  winning_price: 0,
  rating_avg: 0,
  rating_count: '',
  seller_id: '',
  seller_name: '',
  url: 'https://',
  last_seen_at: null,
  product: PRODUCT_TEMPLATE,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

export const OFFER_LIST: RankedList<StoredOffer, Offer> = {
  entity: 'offer',
  tag: 'OL',
  idOf: (offer) => offer.id,
  cellOf: (offer) => offerCell(offer.scope, offer.fields.competitiveness),
  histogramOf: (offer) => offer.fields.total_competitors,
  orders: {
    id: { keyOf: (offer) => idKey(offer.id) },
    total_competitors: {
      keyOf: (offer) => competitorsKey(offer.fields.total_competitors, offer.id),
      index: LISTING_INDEXES.byCompetitors,
      histogramPrefix: competitorsPrefix,
    },
    offer_price: { keyOf: (offer) => priceKey(offer.fields.offer_price, offer.id), index: LISTING_INDEXES.byPrice },
    updated_at: { keyOf: (offer) => timeKey(offer.updated_at, offer.id), index: LISTING_INDEXES.byUpdated },
  },
  codec: recordCodec(offerRecord, [dictionaryOf(template)]),
};
