import * as z from 'zod';
import { BUYBOX_APPROACHES, PRICE_CHANGE_REASON_VALUES, REPRICER_APPROACHES } from './approaches.js';
import { targetExplanation } from './explanation.js';
import { hasAtMostTwoDecimals } from './money.js';
import { storableNumber } from './numbers.js';
import { storable, text } from './text.js';

/**
 * The records of the interface (spec section 2), as zod schemas: what responses are shaped
 * from, and what the import accepts. Field names are exact. Every stored string is `text()`
 * and every stored fraction `storableNumber()`: what is accepted here is what the stream, the
 * queues and the table carry unchanged.
 */
export const MAX_MONEY = 10_000_000;
export const MAX_COMPETITORS = 1_000_000;

export const timestamp = z.iso.datetime({ precision: 3 });
export const money = storableNumber().min(0).max(MAX_MONEY).refine(hasAtMostTwoDecimals, { message: 'Must have at most 2 decimals.' });
const httpUrl = storable(z.url({ protocol: /^https?$/ }).max(2048));
export const connectorUid = text().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'Must be a short lowercase identifier.');
export const productCode = text().min(1).max(64);

const feeEstimate = z.strictObject({
  commission: money,
  fulfilment: money,
  commission_percentage: storableNumber().min(0).max(100),
});
export const feeEstimates = z.record(connectorUid, z.strictObject({ instock: feeEstimate, leadtime: feeEstimate }));
export type FeeEstimates = z.infer<typeof feeEstimates>;

export const connectorTypeFields = z.strictObject({
  uid: connectorUid,
  name: text().min(1).max(100),
  logo: httpUrl,
  website: httpUrl.nullable(),
});

/**
 * The price increment of a connector type: an operator setting carried on the connector type
 * line of the reference-data import (docs/imports.md), never in its API record.
 */
export const DEFAULT_PRICE_STEP = 1;
export const priceStep = storableNumber().gt(0).max(MAX_MONEY).refine(hasAtMostTwoDecimals, { message: 'Must have at most 2 decimals.' });

export const productFields = z.strictObject({
  code: productCode,
  title: text().max(500),
  description: text().max(5000),
  brand: text().max(200),
  colour: text().max(100),
  barcode: text().max(64),
  type: text().max(200).nullable(),
  material: text().max(200).nullable(),
  parent_code: productCode.nullable(),
  images: z.array(httpUrl).max(20).nullable(),
  main_image: httpUrl,
  retail_price: money,
  soh: z.int().min(0).max(1_000_000_000),
  height_cm: storableNumber().min(0).max(100_000),
  length_cm: storableNumber().min(0).max(100_000),
  width_cm: storableNumber().min(0).max(100_000),
  weight_g: storableNumber().min(0).max(100_000_000),
  fee_estimates: feeEstimates.nullable(),
});

export const offerFields = z.strictObject({
  offer_id: text().min(1).max(128),
  offer_price: money,
  offer_status: text().min(1).max(32),
  stock_status: z.enum(['in_stock', 'lead_time']),
  competitiveness: text().min(1).max(32),
  total_competitors: z.int().min(0).max(MAX_COMPETITORS),
  winning: z.boolean(),
  winning_delivery: z.boolean(),
  winning_price: money,
  rating_avg: storableNumber().min(0).max(5),
  rating_count: text().regex(/^\d{1,12}$/, 'Must be numeric text.'),
  seller_id: text().min(1).max(128),
  seller_name: text().max(200),
  url: httpUrl,
  last_seen_at: timestamp.nullable(),
});

const stored = { id: z.int().positive(), created_at: timestamp, updated_at: timestamp };

export const connectorTypeRecord = z.strictObject({ id: stored.id, ...connectorTypeFields.shape, created_at: timestamp, updated_at: timestamp });
export const productRecord = z.strictObject({ id: stored.id, ...productFields.shape, created_at: timestamp, updated_at: timestamp });
export const offerRecord = z.strictObject({
  id: stored.id,
  ...offerFields.shape,
  product: productRecord,
  created_at: timestamp,
  updated_at: timestamp,
});

export { BUYBOX_APPROACHES, PRICE_CHANGE_REASON_VALUES, REPRICER_APPROACHES } from './approaches.js';

/**
 * The price-war guard of a repricer (docs/repricing.md, "Price-war guard"): after more than
 * `undercuts` undercuts between the own offer and one rival within an hour, the repricer holds
 * the offer's price for `cooldown_minutes`. Null (the default, and every repricer stored
 * before the guard existed): no guard.
 */
export const MAX_GUARD_UNDERCUTS = 50;
export const MAX_GUARD_COOLDOWN_MINUTES = 7 * 24 * 60;
export const priceWarGuard = z.strictObject({
  undercuts: z.int().min(1).max(MAX_GUARD_UNDERCUTS),
  cooldown_minutes: z.int().min(1).max(MAX_GUARD_COOLDOWN_MINUTES),
});
export type PriceWarGuard = z.infer<typeof priceWarGuard>;

/**
 * Competitor filters of a repricer (docs/repricing.md, "Competitor filters"): which other
 * sellers' offers it competes with. The defaults (`[]`, `null`, `any`, `null`) filter nothing,
 * which is how repricers behaved before the filters existed.
 */
export const COMPETITOR_STOCK_VALUES = ['any', 'in_stock'] as const;
export const MAX_EXCLUDED_SELLERS = 50;
export const MAX_LEADTIME_DAYS = 365;
export const competitorFilterFields = {
  exclude_seller_ids: z.array(text().min(1).max(128)).max(MAX_EXCLUDED_SELLERS),
  min_competitor_rating: storableNumber().min(0).max(5).nullable(),
  competitor_stock: z.enum(COMPETITOR_STOCK_VALUES),
  max_competitor_leadtime_days: z.int().min(0).max(MAX_LEADTIME_DAYS).nullable(),
};
export type CompetitorFilters = { [Field in keyof typeof competitorFilterFields]: z.output<(typeof competitorFilterFields)[Field]> };
export const NO_COMPETITOR_FILTERS: CompetitorFilters = {
  exclude_seller_ids: [],
  min_competitor_rating: null,
  competitor_stock: 'any',
  max_competitor_leadtime_days: null,
};

export const repricerRecord = z.strictObject({
  id: stored.id,
  uid: z.uuid(),
  buybox_approach: z.enum(BUYBOX_APPROACHES),
  repricer_approach: z.enum(REPRICER_APPROACHES),
  enabled: z.boolean(),
  preferred_price: z.number(),
  preferred_profit: z.number(),
  min_price: z.number(),
  min_profit: z.number(),
  fixed_fulfilment_fee: z.number(),
  /** `cost_based`: what a unit costs the seller; null for `fixed`. */
  unit_cost: z.number().nullable(),
  ...competitorFilterFields,
  price_war_guard: priceWarGuard.nullable(),
  connector_type: connectorTypeRecord,
  product: productRecord,
  created_at: timestamp,
  updated_at: timestamp,
});

/**
 * Where a price change stands on its way to the marketplace (docs/price-sending.md):
 * `suggested` waits for the client's apply (suggest mode); `pending` is queued for the sender;
 * `sent` went out in a batch; `applied` the marketplace confirmed; `failed` will not be sent
 * (`status_reason` says why); `superseded` a later decision for the offer took its place.
 * Every price change ends `applied`, `failed`, `superseded` or `suggested`.
 */
export const PRICE_CHANGE_STATUSES = ['suggested', 'pending', 'sent', 'applied', 'failed', 'superseded'] as const;
export type PriceChangeStatus = (typeof PRICE_CHANGE_STATUSES)[number];

/** A decision of a repricer (docs/repricing.md): the price it wants for an offer, and why. */
export const priceChangeRecord = z.strictObject({
  id: stored.id,
  uid: z.uuid(),
  repricer_id: z.int().positive(),
  /** The marketplace id of the client's offer the decision is for. */
  offer_id: z.string().min(1).max(128),
  product_code: productCode,
  connector: connectorUid,
  old_price: z.number(),
  new_price: z.number(),
  reason: z.enum(PRICE_CHANGE_REASON_VALUES),
  lowest_competitor_price: z.number().nullable(),
  /** The marketplace id of the lowest competitor's offer. */
  competitor_offer_id: z.string().nullable(),
  status: z.enum(PRICE_CHANGE_STATUSES),
  /** Why it failed, was superseded or is held; null while nothing needs saying. */
  status_reason: z.string().max(500).nullable(),
  /** The price last pushed: `new_price`, or a step toward it when the move is larger than one push may make. */
  sent_price: z.number().nullable(),
  sent_at: timestamp.nullable(),
  applied_at: timestamp.nullable(),
  /** Why the engine chose `new_price` (docs/repricing.md, "Explanation"); null on a price change stored before explanations were. */
  explanation: targetExplanation.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

/** `GET /v1/ping`: the credentials work, and whose they are. */
export const pong = z.strictObject({ pong: z.literal(true), client: z.string() });

export const listMeta = z.strictObject({ total: z.int().min(0), limit: z.int().min(1), start: z.int().min(0) });
export const offersPage = z.strictObject({ meta: listMeta, offers: z.array(offerRecord) });

export type ConnectorTypeFields = z.infer<typeof connectorTypeFields>;
export type ProductFields = z.infer<typeof productFields>;
export type OfferFields = z.infer<typeof offerFields>;
export type ConnectorType = z.infer<typeof connectorTypeRecord>;
export type Product = z.infer<typeof productRecord>;
export type Offer = z.infer<typeof offerRecord>;
export type Repricer = z.infer<typeof repricerRecord>;
export type PriceChange = z.infer<typeof priceChangeRecord>;
export type OffersPage = z.infer<typeof offersPage>;
