import * as z from 'zod';
import { hasAtMostTwoDecimals } from './money.js';
import { storableNumber } from './numbers.js';
import { computedFields } from './pricing.js';
import {
  BUYBOX_APPROACHES,
  competitorFilterFields,
  connectorUid,
  MAX_MONEY,
  productCode,
  NO_COMPETITOR_FILTERS,
  REPRICER_APPROACHES,
  type ConnectorType,
  type FeeEstimates,
  type Product,
  type Repricer,
} from './records.js';
import type { RepricerPreferences } from './repricer-preferences.js';

/**
 * The create-repricer use case (docs/api.md, "Computed fields"), the one place a new repricer is
 * built: `POST /v1/repricers/`, the admin CLI (demo data, benchmark) and repricer imports all
 * call `newRepricer`, then write what it returns. Pure: the connector types are read through
 * the lookup the caller passes.
 */

const amount = (min: 'positive' | 'nonnegative') =>
  (min === 'positive' ? storableNumber().gt(0) : storableNumber().min(0))
    .max(MAX_MONEY)
    .refine(hasAtMostTwoDecimals, { message: 'Must have at most 2 decimals.' });

/** `POST /v1/repricers/`: unknown fields and wrong types are refused, never coerced. */
export const createRepricerBody = z.strictObject({
  product_code: productCode,
  preferred_price: amount('positive'),
  preferred_profit: amount('nonnegative'),
  buybox_approach: z.enum(BUYBOX_APPROACHES).default('cheapest'),
  repricer_approach: z.enum(REPRICER_APPROACHES).default('fixed'),
  enabled: z.boolean().default(true),
  connector: connectorUid.optional(),
  min_profit: amount('nonnegative').default(0),
  // Left out, a filter filters nothing: a repricer competes with every buyable offer, as before filters existed.
  exclude_seller_ids: competitorFilterFields.exclude_seller_ids.default(() => [...NO_COMPETITOR_FILTERS.exclude_seller_ids]),
  min_competitor_rating: competitorFilterFields.min_competitor_rating.default(NO_COMPETITOR_FILTERS.min_competitor_rating),
  competitor_stock: competitorFilterFields.competitor_stock.default(NO_COMPETITOR_FILTERS.competitor_stock),
  max_competitor_leadtime_days: competitorFilterFields.max_competitor_leadtime_days.default(NO_COMPETITOR_FILTERS.max_competitor_leadtime_days),
});
export type CreateRepricerBody = z.output<typeof createRepricerBody>;

export type ConnectorChoice = { readonly ok: true; readonly uid: string } | { readonly ok: false; readonly message: string };

/**
 * The connector a repricer is for: the product's only priced connector, the one the body
 * names among several, or the client's default when the product has no fee estimates.
 */
export const chooseConnector = (feeEstimates: FeeEstimates | null, requested: string | undefined, defaultConnector: string): ConnectorChoice => {
  const choices = Object.keys(feeEstimates ?? {}).sort();
  if (choices.length === 0) return { ok: true, uid: requested ?? defaultConnector };
  if (requested !== undefined) {
    return choices.includes(requested)
      ? { ok: true, uid: requested }
      : { ok: false, message: `The product has no fee estimates for this connector; choose one of: ${choices.join(', ')}.` };
  }
  if (choices.length === 1) return { ok: true, uid: choices[0]! };
  return { ok: false, message: `The product is sold on several connectors; name one in "connector": ${choices.join(', ')}.` };
};

/** A repricer before it is stored: the data layer adds its id, uid and timestamps. */
export type NewRepricer = Omit<Repricer, 'id' | 'uid' | 'created_at' | 'updated_at'>;

export type PricedRepricer = { readonly ok: true; readonly repricer: NewRepricer } | { readonly ok: false; readonly reason: string };

/**
 * A repricer with these preferences for the product (as it is now) on the connector, with its
 * computed fields. A PATCH or an import upsert recomputes a repricer through this too.
 */
export const pricedRepricer = (preferences: RepricerPreferences, product: Product, connectorType: ConnectorType): PricedRepricer => {
  const computed = computedFields(preferences, product, connectorType.uid);
  if (!computed.ok) return computed;
  return {
    ok: true,
    // In the order of the record (spec 2.1), as responses show it.
    repricer: {
      buybox_approach: preferences.buybox_approach,
      repricer_approach: preferences.repricer_approach,
      enabled: preferences.enabled,
      preferred_price: preferences.preferred_price,
      preferred_profit: preferences.preferred_profit,
      ...computed.fields,
      exclude_seller_ids: preferences.exclude_seller_ids,
      min_competitor_rating: preferences.min_competitor_rating,
      competitor_stock: preferences.competitor_stock,
      max_competitor_leadtime_days: preferences.max_competitor_leadtime_days,
      connector_type: connectorType,
      product,
    },
  };
};

/**
 * Why a create body cannot become a repricer: `invalid` is the request's fault as it is written
 * (400 naming the field), `unprocessable` a well-formed request that the product, its connector
 * or the arithmetic cannot serve (422).
 */
export type CreateRepricerError =
  { readonly kind: 'invalid'; readonly field: 'connector'; readonly message: string } | { readonly kind: 'unprocessable'; readonly message: string };

export type NewRepricerOutcome = { readonly ok: true; readonly repricer: NewRepricer } | { readonly ok: false; readonly error: CreateRepricerError };

export interface NewRepricerRequest {
  readonly body: CreateRepricerBody;
  /** The product the body names, read for the client (a missing one is the caller's 404). */
  readonly product: Product;
  /** The client's connector for a product without fee estimates. */
  readonly defaultConnector: string;
}

/** The connector type with this uid: the data layer's read in the service, a table in a test. */
export type ConnectorTypeLookup = (uid: string) => Promise<ConnectorType | undefined>;

/** The repricer a create body asks for: its connector chosen and its type known, and priced. */
export const newRepricer = async (request: NewRepricerRequest, connectorTypeOf: ConnectorTypeLookup): Promise<NewRepricerOutcome> => {
  const { body, product } = request;
  const connector = chooseConnector(product.fee_estimates, body.connector, request.defaultConnector);
  if (!connector.ok) return { ok: false, error: { kind: 'invalid', field: 'connector', message: connector.message } };
  const connectorType = await connectorTypeOf(connector.uid);
  if (!connectorType) return { ok: false, error: { kind: 'unprocessable', message: `The connector "${connector.uid}" is not a known connector type.` } };
  const priced = pricedRepricer(body, product, connectorType);
  return priced.ok ? priced : { ok: false, error: { kind: 'unprocessable', message: priced.reason } };
};
