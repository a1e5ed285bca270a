import type { CompetitorFilterName } from './competitor-filter-names.js';
import type { CompetitorFilters } from './records.js';

/**
 * A repricer's competitor filters (docs/repricing.md, "Competitor filters"): which of the other
 * sellers' buyable offers it competes with. Pure; an offer passes when no filter excludes it.
 *
 * The stored offer knows whether it ships now (`in_stock`) or after a leadtime (`lead_time`),
 * not how many days the leadtime is. A leadtime offer takes at least one day, so
 * `max_competitor_leadtime_days: 0` excludes every `lead_time` offer; any larger maximum keeps
 * them all, because nothing stored says that one exceeds it. An in-stock offer has no leadtime
 * and passes every maximum.
 */
export type EngineFilters = Partial<CompetitorFilters>;

/** What the filters read of an offer; a filter never excludes an offer for a field it lacks (the demo data's engine offers have none). */
export interface FilteredOffer {
  readonly seller_id?: string;
  readonly rating_avg?: number;
  readonly stock_status?: 'in_stock' | 'lead_time';
}

/** The fewest days a `lead_time` offer ships in: what a maximum is compared with. */
export const SHORTEST_LEADTIME_DAYS = 1;

/** The first filter that excludes the offer, in the order of the repricer's fields; undefined when it passes. */
export const excludingFilter = (filters: EngineFilters, offer: FilteredOffer): CompetitorFilterName | undefined => {
  const { exclude_seller_ids, min_competitor_rating, competitor_stock, max_competitor_leadtime_days } = filters;
  if (offer.seller_id !== undefined && exclude_seller_ids?.includes(offer.seller_id)) return 'exclude_seller_ids';
  if (min_competitor_rating != null && offer.rating_avg !== undefined && offer.rating_avg < min_competitor_rating) return 'min_competitor_rating';
  if (competitor_stock === 'in_stock' && offer.stock_status !== undefined && offer.stock_status !== 'in_stock') return 'competitor_stock';
  if (max_competitor_leadtime_days != null && offer.stock_status === 'lead_time' && max_competitor_leadtime_days < SHORTEST_LEADTIME_DAYS)
    return 'max_competitor_leadtime_days';
  return undefined;
};

export const passesCompetitorFilters = (filters: EngineFilters, offer: FilteredOffer): boolean => excludingFilter(filters, offer) === undefined;
