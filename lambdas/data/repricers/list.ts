import { createHash } from 'node:crypto';
import * as z from 'zod';
import { COMPETITOR_STOCK_VALUES, NO_COMPETITOR_FILTERS, repricerRecord, type Repricer } from '../../domain/records.js';
import { LISTING_INDEXES } from '../../config/table-schema.js';
import { PRODUCT_TEMPLATE } from '../lists/product-template.js';
import { dictionaryOf, recordCodec } from '../lists/ranked/record-codec.js';
import type { RankedList } from '../lists/ranked/ranked-list.js';
import { idKey, timeKey } from '../table/sort-keys.js';

/**
 * The repricer entity, declared once: the canonical item (the API record and the version its
 * ETag names) and how repricers are listed, counted and sorted (docs/data-model.md).
 */
export const REPRICER_SCHEMA_VERSION = 1;

/**
 * A repricer stored before competitor filters existed has none of their fields: it reads with
 * the defaults, which filter nothing, so it decides as it did (docs/repricing.md). One stored
 * before `cost_based` and the price-war guard reads as `fixed` (no unit cost) without a guard.
 */
const withCostAndGuard = (raw: unknown): unknown => (typeof raw === 'object' && raw !== null ? { unit_cost: null, price_war_guard: null, ...raw } : raw);
const unfilteredRepricerRecord = repricerRecord
  .omit({ exclude_seller_ids: true, min_competitor_rating: true, competitor_stock: true, max_competitor_leadtime_days: true })
  // Parsed again: in the order of the record, so a re-encoded listing is the same bytes as a new one.
  .transform((old): Repricer => repricerRecord.parse({ ...old, ...NO_COMPETITOR_FILTERS, exclude_seller_ids: [] }));
const readableRepricerRecord = z.preprocess(withCostAndGuard, z.union([repricerRecord, unfilteredRepricerRecord]));

export const storedRepricer = z.object({
  entity: z.literal('repricer'),
  sv: z.literal(REPRICER_SCHEMA_VERSION),
  version: z.int().positive(),
  record: readableRepricerRecord,
});
export type StoredRepricer = z.output<typeof storedRepricer>;

export const repricerSourceDigest = (stored: StoredRepricer): string => createHash('sha256').update(JSON.stringify(stored)).digest('base64url').slice(0, 16);

const stamp = '2026-01-01T00:00:00.000Z';
/** The first dictionary's template (before competitor filters): listings written then still decode. */
const unfilteredTemplate: Omit<Repricer, keyof typeof NO_COMPETITOR_FILTERS | 'unit_cost' | 'price_war_guard'> = {
  id: 0,
  uid: '00000000-0000-4000-8000-000000000000',
  buybox_approach: 'cheapest',
  repricer_approach: 'fixed',
  enabled: true,
  preferred_price: 0,
  preferred_profit: 0,
  min_price: 0,
  min_profit: 0,
  fixed_fulfilment_fee: 0,
  connector_type: { id: 0, uid: '', name: '', logo: 'https://', website: 'https://', created_at: stamp, updated_at: stamp },
  product: PRODUCT_TEMPLATE,
  created_at: stamp,
  updated_at: stamp,
};

const { connector_type, product, created_at, updated_at, ...head } = unfilteredTemplate;
const template: Omit<Repricer, 'unit_cost' | 'price_war_guard'> = {
  ...head,
  exclude_seller_ids: [''],
  min_competitor_rating: 0,
  competitor_stock: COMPETITOR_STOCK_VALUES[1],
  max_competitor_leadtime_days: 0,
  connector_type,
  product,
  created_at,
  updated_at,
};

/** Enabled and disabled repricers are listed apart, so the `enabled` filter reads only what it returns. */
export const repricerCell = (enabled: boolean) => (enabled ? 'on' : 'off');

export const REPRICER_LIST: RankedList<StoredRepricer, Repricer> = {
  entity: 'repricer',
  tag: 'RL',
  idOf: (stored) => stored.record.id,
  cellOf: (stored) => repricerCell(stored.record.enabled),
  orders: {
    id: { keyOf: (stored) => idKey(stored.record.id) },
    updated_at: { keyOf: (stored) => timeKey(stored.record.updated_at, stored.record.id), index: LISTING_INDEXES.byUpdated },
    created_at: { keyOf: (stored) => timeKey(stored.record.created_at, stored.record.id), index: LISTING_INDEXES.byCreated },
  },
  codec: recordCodec(readableRepricerRecord, [dictionaryOf(unfilteredTemplate), dictionaryOf(template)]),
};
