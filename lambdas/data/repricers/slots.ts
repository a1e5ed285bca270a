import * as z from 'zod';
import { BUYBOX_APPROACHES, REPRICER_APPROACHES, competitorFilterFields, NO_COMPETITOR_FILTERS, priceWarGuard } from '../../domain/records.js';

/**
 * A repricer's slot in its product's partition (table/keys.ts, repricerSlotKey): one repricer per
 * (product, connector), with what a repricing decision needs of it, so the evaluator's one Query
 * of the partition reads it with the offers. Written with the repricer (repricers/write.ts).
 */
export const repricerSlot = z.object({
  repricerId: z.int().positive(),
  enabled: z.boolean(),
  connector: z.string(),
  min_price: z.number(),
  preferred_price: z.number(),
  // A slot written before the approaches existed decides as it did: `cheapest`.
  buybox_approach: z.enum(BUYBOX_APPROACHES).default('cheapest'),
  // Its bounds are stored computed; the approach only names where they came from (the explanation says it).
  repricer_approach: z.enum(REPRICER_APPROACHES).default('fixed'),
  // A slot written before competitor filters existed has none: it filters nothing, as it did.
  exclude_seller_ids: competitorFilterFields.exclude_seller_ids.default(() => []),
  min_competitor_rating: competitorFilterFields.min_competitor_rating.default(NO_COMPETITOR_FILTERS.min_competitor_rating),
  competitor_stock: competitorFilterFields.competitor_stock.default(NO_COMPETITOR_FILTERS.competitor_stock),
  max_competitor_leadtime_days: competitorFilterFields.max_competitor_leadtime_days.default(NO_COMPETITOR_FILTERS.max_competitor_leadtime_days),
  // A slot written before the price-war guard existed has none: it never holds, as before.
  price_war_guard: priceWarGuard.nullable().default(null),
});
export type RepricerSlot = z.infer<typeof repricerSlot>;
