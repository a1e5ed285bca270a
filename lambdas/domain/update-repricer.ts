import * as z from 'zod';
import { createRepricerBody, pricedRepricer, type PricingField, type RepricerChoices } from './create-repricer.js';
import type { Product, Repricer } from './records.js';
import { UPDATABLE_FIELDS, type RepricerPreferences, type UpdatableField } from './repricer-preferences.js';

// The same rules as create, without create's defaults: a field left out keeps its value.
const create = createRepricerBody.shape;
type WithoutDefault<T> = T extends z.ZodDefault<infer Inner> ? Inner : T;
type UpdatableShape = { [Field in UpdatableField]: z.ZodOptional<WithoutDefault<(typeof create)[Field]>> };
const withoutDefault = (rule: z.ZodType): z.ZodType => (rule instanceof z.ZodDefault ? (rule.unwrap() as z.ZodType) : rule);
const updatableShape = Object.fromEntries(UPDATABLE_FIELDS.map((field) => [field, withoutDefault(create[field]).optional()])) as UpdatableShape;

/** Any of the preferences, each by create's rule and none required: a PATCH body, or the overrides of a preview. */
export const repricerPatchFields = z.strictObject(updatableShape);

/** `PATCH /v1/repricers/{id}`: at least one field; unknown fields and wrong types are refused. */
export const updateRepricerBody = repricerPatchFields.refine((body) => Object.keys(body).length > 0, {
  message: `Give at least one field to change: ${UPDATABLE_FIELDS.join(', ')}.`,
  // Only for a body with nothing else wrong: unknown fields are reported on their own.
  when: (payload) => payload.issues.length === 0,
});
export type UpdateRepricerBody = z.output<typeof updateRepricerBody>;

export type PatchOutcome = { readonly ok: true; readonly record: Repricer } | { readonly ok: false; readonly field?: PricingField; readonly reason: string };

/** `now`, or one millisecond after `previous` when the clock has not passed it: updated_at always moves. */
export const nextTimestamp = (previous: string, now: string): string =>
  Date.parse(now) > Date.parse(previous) ? now : new Date(Date.parse(previous) + 1).toISOString();

/**
 * The repricer after a PATCH (or an import upsert, whose patch is all of a line's preferences):
 * the given preferences over the current ones, priced as a create prices them, for the
 * repricer's connector and `product` (the product as it is now), which also replaces the nested
 * copy. Id, uid, connector and `created_at` stay; `updated_at` moves.
 */
export const applyRepricerPatch = (current: Repricer, patch: UpdateRepricerBody, product: Product, now: string): PatchOutcome => {
  // `null` is a value of its own (a filter turned off), so only a field left out keeps the current one.
  const merged = Object.fromEntries(
    UPDATABLE_FIELDS.map((field) => [field, patch[field] === undefined ? current[field] : patch[field]]),
  ) as RepricerPreferences;
  // A cost_based repricer's preferred_price is computed: it is only carried over to a repricer
  // that stays or becomes `fixed`; a unit cost is only carried over to one that stays cost_based.
  const costBased = merged.repricer_approach === 'cost_based';
  const preferences: RepricerChoices = {
    ...merged,
    preferred_price: costBased ? patch.preferred_price : merged.preferred_price,
    unit_cost: costBased || patch.unit_cost !== undefined ? merged.unit_cost : null,
  };
  const priced = pricedRepricer(preferences, product, current.connector_type);
  if (!priced.ok) return priced;
  return { ok: true, record: { ...current, ...priced.repricer, updated_at: nextTimestamp(current.updated_at, now) } };
};

/**
 * A `cost_based` repricer priced again from its product as it is now (docs/repricing.md,
 * "Cost-based bounds"): its bounds follow the product's stock mode and fees. The repricer to
 * write when its bounds moved; undefined when it keeps them: it is not cost_based, its product
 * is gone, the bounds did not move, or the fees leave no price for these costs (its PATCH would
 * be refused the same way, so it keeps its last bounds).
 */
export const repricedCostBounds = (current: Repricer, product: Product | undefined, now: string): Repricer | undefined => {
  if (!product || current.repricer_approach !== 'cost_based') return undefined;
  const next = applyRepricerPatch(current, {}, product, now);
  if (!next.ok) return undefined;
  const after = next.record;
  const moved =
    after.min_price !== current.min_price || after.preferred_price !== current.preferred_price || after.fixed_fulfilment_fee !== current.fixed_fulfilment_fee;
  return moved ? after : undefined;
};
