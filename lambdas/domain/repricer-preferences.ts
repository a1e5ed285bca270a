import type { Repricer } from './records.js';

/**
 * A repricer's preferences: what its creator chooses, and the only fields that a PATCH or an
 * import upsert may change later. The rest of a repricer is its identity (product, connector,
 * id, uid), its timestamps, or computed from these (docs/api.md, "Computed fields").
 */
export const UPDATABLE_FIELDS = [
  'enabled',
  'preferred_price',
  'preferred_profit',
  'min_profit',
  'unit_cost',
  'buybox_approach',
  'repricer_approach',
  'exclude_seller_ids',
  'min_competitor_rating',
  'competitor_stock',
  'max_competitor_leadtime_days',
  'price_war_guard',
] as const;
export type UpdatableField = (typeof UPDATABLE_FIELDS)[number];
export type RepricerPreferences = Pick<Repricer, UpdatableField>;

/** The preferences of a create body, an import line or a repricer, and nothing else of it. */
export const preferencesOf = <Source extends { readonly [Field in UpdatableField]?: unknown }>(source: Source): Pick<Source, UpdatableField> =>
  Object.fromEntries(UPDATABLE_FIELDS.map((field) => [field, source[field]])) as Pick<Source, UpdatableField>;
