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

/** The sort orders each filter can be served in, in index order (README "Data model"). */
export const SUPPORTED_COMBINATIONS =
  'total_competitors_gte can only be combined with _sort=total_competitors (ASC or DESC), which is its default; ' +
  'competitiveness and _include_other_offers combine with every sort.';

export type OfferQueryProblem = { readonly field: string; readonly message: string };

/** Turns validated parameters into a query, or names the combination that index order cannot serve. */
export const planOfferQuery = (
  params: z.output<typeof offerQueryParameters>,
): { ok: true; query: OfferQuery } | { ok: false; problem: OfferQueryProblem } => {
  const minCompetitors = params.total_competitors_gte;
  const sort = params._sort ?? { field: minCompetitors === undefined ? 'id' : 'total_competitors', direction: 'ASC' as const };
  if (minCompetitors !== undefined && sort.field !== 'total_competitors') {
    return { ok: false, problem: { field: '_sort', message: SUPPORTED_COMBINATIONS } };
  }
  return {
    ok: true,
    query: {
      scope: params._include_other_offers === 'true' ? 'all' : 'own',
      ...(params.competitiveness === undefined ? {} : { competitiveness: params.competitiveness }),
      ...(minCompetitors === undefined ? {} : { minCompetitors }),
      sort,
      limit: params._limit ?? DEFAULT_LIMIT,
      start: params._start ?? 0,
    },
  };
};
