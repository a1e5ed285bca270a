import { createHash } from 'node:crypto';
import * as z from 'zod';
import { targetExplanation } from '../../domain/explanation.js';
import { PRICE_CHANGE_REASON_VALUES, PRICE_CHANGE_STATUSES, priceChangeRecord, type PriceChange, type PriceChangeStatus } from '../../domain/records.js';
import { dictionaryOf, recordCodec } from '../lists/ranked/record-codec.js';
import type { RankedList } from '../lists/ranked/ranked-list.js';
import { idKey } from '../table/sort-keys.js';

/**
 * The price-change entity, declared once. The canonical item is written by the repricing
 * evaluator under the product (one per decision, keyed so that a replayed evaluation writes
 * the same item again); two lists are derived from it by the list maintainer:
 *  - the tenant's, with one cell per status and reason (`GET /v1/price-changes`, `status`
 *    and `reason` filters);
 *  - each product's, with one cell per repricer, status and reason (the `product_code` and
 *    `repricer_id` filters, and `GET /v1/repricers/{id}/price-changes`).
 * The status moves after creation (status.ts), so a listing moves with it: the
 * maintainer is told the cells of the item before and after the write.
 * Ids are reserved with a time later than every earlier one (counters.ts reserveTimedIds), so
 * the id order is also the `created_at` order and one order serves both sorts.
 */
export const PRICE_CHANGE_SCHEMA_VERSION = 2 as const;

/** A price change stored before explanations were has none: it reads as `explanation: null`. */
const storedRecord = priceChangeRecord.extend({ explanation: priceChangeRecord.shape.explanation.default(null) });

const currentVersion = z.object({
  entity: z.literal('priceChange'),
  sv: z.literal(PRICE_CHANGE_SCHEMA_VERSION),
  record: storedRecord,
});
/**
 * Version 1 was written before prices were sent: such a decision did not go out, so it reads
 * as `suggested` (the client may still apply it) and has nothing of the sending yet.
 */
const firstVersionRecord = storedRecord
  .omit({ status: true, status_reason: true, sent_price: true, sent_at: true, applied_at: true, updated_at: true })
  .transform((old): PriceChange => ({
    ...old,
    status: 'suggested',
    status_reason: null,
    sent_price: null,
    sent_at: null,
    applied_at: null,
    updated_at: old.created_at,
  }));
const firstVersion = z
  .object({ entity: z.literal('priceChange'), sv: z.literal(1), record: firstVersionRecord })
  .transform((old) => ({ entity: old.entity, sv: PRICE_CHANGE_SCHEMA_VERSION as typeof PRICE_CHANGE_SCHEMA_VERSION, record: old.record }));

/**
 * The canonical item keeps the explanation compressed beside the record (EXPLANATION_ATTRIBUTE),
 * not in it: written with every decision and rewritten with every status move, it would
 * otherwise take the item from one write unit to three (docs/repricing.md, "Explanation").
 * Read, it is back in the record.
 */
export const EXPLANATION_ATTRIBUTE = 'explanationZ';
const withExplanation = (item: unknown): unknown => {
  if (typeof item !== 'object' || item === null) return item;
  const { [EXPLANATION_ATTRIBUTE]: stored, ...rest } = item as Record<string, unknown>;
  // A stream record's image carries a binary attribute as base64 text (so do Lambda's events); a read, as bytes.
  const packed = typeof stored === 'string' ? Buffer.from(stored, 'base64') : stored;
  if (!(packed instanceof Uint8Array) || typeof rest.record !== 'object' || rest.record === null) return item;
  return { ...rest, record: { ...rest.record, explanation: explanationCodec.decode(packed) } };
};

export const storedPriceChange = z.preprocess(withExplanation, z.union([currentVersion, firstVersion]));
export type StoredPriceChange = z.output<typeof currentVersion>;

/** The canonical item's attributes (keys aside): the record without its explanation, which travels compressed beside it. */
export const canonicalPriceChange = (stored: StoredPriceChange): Record<string, unknown> => {
  const { explanation, ...record } = stored.record;
  return { entity: stored.entity, sv: stored.sv, record, ...(explanation ? { [EXPLANATION_ATTRIBUTE]: explanationCodec.encode(explanation) } : {}) };
};

export const priceChangeSourceDigest = (stored: StoredPriceChange): string =>
  createHash('sha256').update(JSON.stringify(stored)).digest('base64url').slice(0, 16);

/** The first version's template: listings written then still decode (as `suggested`). */
const firstTemplate = {
  id: 0,
  uid: '00000000-0000-4000-8000-000000000000',
  repricer_id: 0,
  offer_id: '',
  product_code: '',
  connector: '',
  old_price: 0,
  new_price: 0,
  reason: 'undercut',
  lowest_competitor_price: 0,
  competitor_offer_id: '',
  created_at: '2026-01-01T00:00:00.000Z',
};
/** The second dictionary's template, exactly as written then (listings encoded with it must still decode). */
const template: Omit<PriceChange, 'explanation'> = {
  id: 0,
  uid: '00000000-0000-4000-8000-000000000000',
  repricer_id: 0,
  offer_id: '',
  product_code: '',
  connector: '',
  old_price: 0,
  new_price: 0,
  reason: 'undercut',
  lowest_competitor_price: 0,
  competitor_offer_id: '',
  status: 'pending',
  status_reason: null,
  sent_price: null,
  sent_at: null,
  applied_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};
/** The third dictionary's template: a price change with an explanation (its field names, which every stored one repeats). */
const explainedTemplate: PriceChange = {
  ...template,
  explanation: {
    approach: { buybox_approach: 'cheapest', repricer_approach: 'fixed' },
    competitors: { considered: [{ offer_id: '', seller_id: '', price: 0 }], excluded: [{ offer_id: '', seller_id: '', price: 0, by: 'not_buyable' }] },
    competitor_counts: { considered: 0, excluded: 0 },
    own_stock_status: 'in_stock',
    in_stock_premium: null,
    price_step: 1,
    steps: [{ rule: 'undercut', offer_id: '', seller_id: '', price: 0, stock_status: 'in_stock', premium_percent: null, limit: 0 }],
    raw_target: 0,
    bounds: [
      { bound: 'floor', value: 0, applied: false },
      { bound: 'ceiling', value: 0, applied: false },
    ],
    final_price: 0,
    reason: 'undercut',
  },
};
const codec = recordCodec(z.union([storedRecord, firstVersionRecord]), [dictionaryOf(firstTemplate), dictionaryOf(template), dictionaryOf(explainedTemplate)]);
const explanationCodec = recordCodec(targetExplanation, [dictionaryOf(explainedTemplate.explanation)]);
const orders = { id: { keyOf: (stored: StoredPriceChange) => idKey(stored.record.id) } };

/** The tenant list's cell: `status|reason`. */
export const priceChangeCell = (status: PriceChangeStatus, reason: PriceChange['reason']) => `${status}|${reason}`;

/**
 * Listings written before price changes had a status sit in a cell of the reason alone (and
 * `repricerId|reason` in a product's list); they are all `suggested`. The maintainer moves one
 * when its item next changes, a rebuild moves them all.
 */
export const legacyPriceChangeCell = (reason: PriceChange['reason']) => reason;

/** The reasons there were when listings had no status: only they can sit in a legacy cell. */
const LEGACY_REASONS = ['undercut', 'floor', 'ceiling', 'no_competition'] as const satisfies readonly PriceChange['reason'][];

/** Every cell the tenant list can hold, legacy ones included: what a rebuild sweeps and counts. */
export const PRICE_CHANGE_CELLS: readonly string[] = [
  ...PRICE_CHANGE_STATUSES.flatMap((status) => PRICE_CHANGE_REASON_VALUES.map((reason) => priceChangeCell(status, reason))),
  ...LEGACY_REASONS.map(legacyPriceChangeCell),
];

/** The status and reason a tenant cell (or the tail of a product cell) stands for. */
export const parsePriceChangeCell = (cell: string): { readonly status: string; readonly reason: string } => {
  const [first = '', second] = cell.split('|');
  return second === undefined ? { status: 'suggested', reason: first } : { status: first, reason: second };
};

export const PRICE_CHANGE_LIST: RankedList<StoredPriceChange, PriceChange> = {
  entity: 'priceChange',
  tag: 'CL',
  idOf: (stored) => stored.record.id,
  cellOf: (stored) => priceChangeCell(stored.record.status, stored.record.reason),
  orders,
  codec,
};

/** A product list's cell: the repricer, then the tenant list's cell (so legacy ones read alike). */
export const productChangeCell = (repricerId: number, tenantCell: string) => `${repricerId}|${tenantCell}`;

export const parseProductChangeCell = (cell: string): { readonly repricerId: string; readonly status: string; readonly reason: string } => {
  const separator = cell.indexOf('|');
  return { repricerId: cell.slice(0, separator), ...parsePriceChangeCell(cell.slice(separator + 1)) };
};

export const PRODUCT_PRICE_CHANGE_LIST: RankedList<StoredPriceChange, PriceChange> = {
  entity: 'productPriceChange',
  tag: 'PCL',
  idOf: (stored) => stored.record.id,
  cellOf: (stored) => productChangeCell(stored.record.repricer_id, PRICE_CHANGE_LIST.cellOf(stored)),
  orders,
  codec,
};

/**
 * The tenant cells an item may be listed in, as the stream shows it: its current cell, and the
 * legacy one while the item is still of the first version (its listing was written then).
 */
export const priceChangeCellsOfItem = (item: Record<string, unknown>): string[] => {
  const parsed = storedPriceChange.safeParse(item);
  if (!parsed.success) return [];
  const cell = PRICE_CHANGE_LIST.cellOf(parsed.data);
  return item.sv === 1 ? [cell, legacyPriceChangeCell(parsed.data.record.reason)] : [cell];
};
