/**
 * A repricer's competitor filters by name, in the order they are checked (competitor-filters.ts):
 * an offer two of them exclude is named by the first. Apart from the filters themselves so that
 * an explanation (explanation.ts) can name them without reading the records they filter.
 */
export const COMPETITOR_FILTER_NAMES = ['exclude_seller_ids', 'min_competitor_rating', 'competitor_stock', 'max_competitor_leadtime_days'] as const;
export type CompetitorFilterName = (typeof COMPETITOR_FILTER_NAMES)[number];
