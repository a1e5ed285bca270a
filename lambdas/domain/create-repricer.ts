import * as z from 'zod';
import { hasAtMostTwoDecimals } from './money.js';
import { storableNumber } from './numbers.js';
import { computedFields, costBasedFields } from './pricing.js';
import {
  BUYBOX_APPROACHES,
  competitorFilterFields,
  connectorUid,
  MAX_MONEY,
  productCode,
  NO_COMPETITOR_FILTERS,
  priceWarGuard,
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

/**
 * What an approach refuses of a body or a PATCHed repricer: `fixed` needs its `preferred_price`
 * and has no `unit_cost`; `cost_based` needs its `unit_cost` and computes its `preferred_price`.
 */
export const approachProblems = (choices: {
  readonly repricer_approach: string;
  readonly preferred_price?: number | undefined;
  readonly unit_cost?: number | null | undefined;
}): { field: 'preferred_price' | 'unit_cost'; reason: string }[] => {
  const { preferred_price, unit_cost } = choices;
  const hasCost = unit_cost !== undefined && unit_cost !== null;
  if (choices.repricer_approach === 'cost_based') {
    return [
      ...(preferred_price === undefined
        ? []
        : [{ field: 'preferred_price' as const, reason: 'A cost_based repricer computes its preferred_price from unit_cost: leave it out.' }]),
      ...(hasCost ? [] : [{ field: 'unit_cost' as const, reason: 'A cost_based repricer needs its unit_cost.' }]),
    ];
  }
  return [
    ...(preferred_price === undefined ? [{ field: 'preferred_price' as const, reason: 'Required: a fixed repricer needs its preferred_price.' }] : []),
    ...(hasCost
      ? [{ field: 'unit_cost' as const, reason: 'Only a cost_based repricer has a unit_cost: leave it out, or set repricer_approach to cost_based.' }]
      : []),
  ];
};

/** `POST /v1/repricers/`: unknown fields and wrong types are refused, never coerced. */
export const createRepricerBody = z
  .strictObject({
    product_code: productCode,
    // `fixed` needs it (its ceiling); `cost_based` computes it, so it is refused there (pricedRepricer).
    preferred_price: amount('positive').optional(),
    preferred_profit: amount('nonnegative'),
    // `cost_based` needs it; `fixed` has none (null or left out).
    unit_cost: amount('nonnegative').nullable().optional(),
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
    // Left out: no guard, as before the guard existed.
    price_war_guard: priceWarGuard.nullable().default(null),
  })
  .superRefine(
    (body, context) => {
      // Each approach takes one of the two and computes the other bound from it (docs/api.md).
      for (const problem of approachProblems(body)) context.addIssue({ code: 'custom', path: [problem.field], message: problem.reason });
    },
    { when: (payload) => payload.issues.length === 0 },
  );
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

/** The fields of the request a pricing failure can name (a 400); none: the product's fees are at fault (a 422). */
export type PricingField = 'preferred_price' | 'unit_cost' | 'min_profit';

export type PricedRepricer =
  { readonly ok: true; readonly repricer: NewRepricer } | { readonly ok: false; readonly field?: PricingField; readonly reason: string };

/**
 * What a repricer is asked to be: its preferences, where `preferred_price` and `unit_cost` may
 * be left out (each approach needs one of them and refuses the other).
 */
export type RepricerChoices = Omit<RepricerPreferences, 'preferred_price' | 'unit_cost'> & {
  readonly preferred_price?: number | undefined;
  readonly unit_cost?: number | null | undefined;
};

type PricedFields = Pick<NewRepricer, 'preferred_price' | 'min_price' | 'min_profit' | 'fixed_fulfilment_fee' | 'unit_cost'>;
type PricedFieldsOutcome =
  { readonly ok: true; readonly fields: PricedFields } | { readonly ok: false; readonly field?: PricingField; readonly reason: string };

/**
 * The bounds of either approach (docs/api.md, "Computed fields"): `fixed` takes its ceiling
 * (`preferred_price`) and derives its floor; `cost_based` derives both from `unit_cost`.
 */
const pricedFields = (preferences: RepricerChoices, product: Product, connectorUid: string): PricedFieldsOutcome => {
  const [problem] = approachProblems(preferences);
  if (problem) return { ok: false, ...problem };
  const { preferred_price, unit_cost } = preferences;
  if (unit_cost !== undefined && unit_cost !== null) {
    const computed = costBasedFields({ ...preferences, unit_cost }, product, connectorUid);
    return computed.ok ? { ok: true, fields: { ...computed.fields, unit_cost } } : computed;
  }
  if (preferred_price === undefined) throw new Error('approachProblems lets no fixed repricer through without its preferred_price');
  const computed = computedFields({ ...preferences, preferred_price }, product, connectorUid);
  return computed.ok ? { ok: true, fields: { preferred_price, ...computed.fields, unit_cost: null } } : computed;
};

/**
 * A repricer with these preferences for the product (as it is now) on the connector, with its
 * computed fields. A PATCH, an import upsert and a change of the product's stock mode or fees
 * (lambdas/repricers/cost-bounds.ts) recompute a repricer through this too.
 */
export const pricedRepricer = (preferences: RepricerChoices, product: Product, connectorType: ConnectorType): PricedRepricer => {
  const priced = pricedFields(preferences, product, connectorType.uid);
  if (!priced.ok) return priced;
  const { preferred_price, min_price, min_profit, fixed_fulfilment_fee, unit_cost } = priced.fields;
  return {
    ok: true,
    // In the order of the record (spec 2.1), as responses show it.
    repricer: {
      buybox_approach: preferences.buybox_approach,
      repricer_approach: preferences.repricer_approach,
      enabled: preferences.enabled,
      preferred_price,
      preferred_profit: preferences.preferred_profit,
      min_price,
      min_profit,
      fixed_fulfilment_fee,
      unit_cost,
      exclude_seller_ids: preferences.exclude_seller_ids,
      min_competitor_rating: preferences.min_competitor_rating,
      competitor_stock: preferences.competitor_stock,
      max_competitor_leadtime_days: preferences.max_competitor_leadtime_days,
      price_war_guard: preferences.price_war_guard,
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
  | { readonly kind: 'invalid'; readonly field: 'connector' | PricingField; readonly message: string }
  | { readonly kind: 'unprocessable'; readonly message: string };

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
  if (priced.ok) return priced;
  return {
    ok: false,
    error: priced.field ? { kind: 'invalid', field: priced.field, message: priced.reason } : { kind: 'unprocessable', message: priced.reason },
  };
};
