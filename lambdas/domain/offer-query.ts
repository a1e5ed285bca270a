import * as z from 'zod';
import { DEFAULT_LIMIT, integerText, limitText, sortText, startText, type SortDirection } from './list-parameters.js';
import { MAX_COMPETITORS } from './records.js';
import { text } from './text.js';

export { DEFAULT_LIMIT, MAX_LIMIT, MAX_START, type SortDirection } from './list-parameters.js';

export const OFFER_SORT_FIELDS = ['id', 'total_competitors', 'offer_price', 'updated_at'] as const;
export type OfferSortField = (typeof OFFER_SORT_FIELDS)[number];

/** What the data layer needs to answer one `GET /v1/offers`. */
export interface OfferQuery {
  readonly scope: 'own' | 'all';
  readonly competitiveness?: string;
  readonly minCompetitors?: number;
  readonly sort: { readonly field: OfferSortField; readonly direction: SortDirection };
  readonly limit: number;
  readonly start: number;
}

export const offerQueryParameters = z.strictObject({
  _limit: limitText.optional(),
  _start: startText.optional(),
  _sort: sortText(OFFER_SORT_FIELDS).optional(),
  competitiveness: text().min(1, 'competitiveness must not be empty.').max(32, 'competitiveness is at most 32 characters.').optional(),
  total_competitors_gte: integerText('total_competitors_gte', 0, MAX_COMPETITORS).optional(),
  _include_other_offers: z.enum(['true', 'false'], { message: '_include_other_offers must be true or false.' }).optional(),
});

/**
 * Turns validated parameters into a query. Every filter combines with every sort; the default
 * sort is `id:ASC` whatever the filters.
 */
export const planOfferQuery = (params: z.output<typeof offerQueryParameters>): OfferQuery => ({
  scope: params._include_other_offers === 'true' ? 'all' : 'own',
  ...(params.competitiveness === undefined ? {} : { competitiveness: params.competitiveness }),
  ...(params.total_competitors_gte === undefined ? {} : { minCompetitors: params.total_competitors_gte }),
  sort: params._sort ?? { field: 'id', direction: 'ASC' },
  limit: params._limit ?? DEFAULT_LIMIT,
  start: params._start ?? 0,
});
