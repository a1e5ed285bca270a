import * as z from 'zod';
import { createRepricerBody } from './create-repricer.js';
import { computePricing } from './pricing.js';
import type { Product, Repricer } from './records.js';

/** The preferences a PATCH may change; product, connector, ids and computed fields stay. */
export const UPDATABLE_FIELDS = ['enabled', 'preferred_price', 'preferred_profit', 'min_profit', 'buybox_approach', 'repricer_approach'] as const;

// The same rules as create, without create's defaults: a field left out keeps its value.
const create = createRepricerBody.shape;

/** `PATCH /v1/repricers/{id}`: at least one field; unknown fields and wrong types are refused. */
export const updateRepricerBody = z
  .strictObject({
    enabled: create.enabled.unwrap().optional(),
    preferred_price: create.preferred_price.optional(),
    preferred_profit: create.preferred_profit.optional(),
    min_profit: create.min_profit.unwrap().optional(),
    buybox_approach: create.buybox_approach.unwrap().optional(),
    repricer_approach: create.repricer_approach.unwrap().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: `Give at least one field to change: ${UPDATABLE_FIELDS.join(', ')}.`,
    // Only for a body with nothing else wrong: unknown fields are reported on their own.
    when: (payload) => payload.issues.length === 0,
  });
export type UpdateRepricerBody = z.output<typeof updateRepricerBody>;

export type PatchOutcome = { readonly ok: true; readonly record: Repricer } | { readonly ok: false; readonly reason: string };

/** `now`, or one millisecond after `previous` when the clock has not passed it: updated_at always moves. */
export const nextTimestamp = (previous: string, now: string): string =>
  Date.parse(now) > Date.parse(previous) ? now : new Date(Date.parse(previous) + 1).toISOString();

/**
 * The repricer after a PATCH: the given preferences over the current ones, the computed fields
 * recomputed for the repricer's connector from `product` (the product as it is now), which
 * also replaces the nested copy. `created_at` stays; `updated_at` moves.
 */
export const applyRepricerPatch = (current: Repricer, patch: UpdateRepricerBody, product: Product, now: string): PatchOutcome => {
  const preferences = {
    enabled: patch.enabled ?? current.enabled,
    preferred_price: patch.preferred_price ?? current.preferred_price,
    preferred_profit: patch.preferred_profit ?? current.preferred_profit,
    buybox_approach: patch.buybox_approach ?? current.buybox_approach,
    repricer_approach: patch.repricer_approach ?? current.repricer_approach,
  };
  const pricing = computePricing({
    preferredPrice: preferences.preferred_price,
    preferredProfit: preferences.preferred_profit,
    minProfit: patch.min_profit ?? current.min_profit,
    soh: product.soh,
    feeEstimates: product.fee_estimates,
    connectorUid: current.connector_type.uid,
  });
  if (!pricing.ok) return pricing;
  return {
    ok: true,
    record: {
      ...current,
      ...preferences,
      min_price: pricing.value.minPrice,
      min_profit: pricing.value.minProfit,
      fixed_fulfilment_fee: pricing.value.fixedFulfilmentFee,
      product,
      updated_at: nextTimestamp(current.updated_at, now),
    },
  };
};
