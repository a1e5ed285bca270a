import { z } from 'zod';
import { MAX_COMPETITORS } from './records.js';

export const OFFER_SORT_FIELDS = ['id', 'total_competitors', 'offer_price', 'updated_at'] as const;
export type OfferSortField = (typeof OFFER_SORT_FIELDS)[number];
export type SortDirection = 'ASC' | 'DESC';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 100;
export const MAX_START = 1_000_000_000;

/** What the data layer needs to answer one `GET /v1/offers`. */
export interface OfferQuery {
  readonly scope: 'own' | 'all';
  readonly competitiveness?: string;
  readonly minCompetitors?: number;
  readonly sort: { readonly field: OfferSortField; readonly direction: SortDirection };
  readonly limit: number;
  readonly start: number;
}

const integerText = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,10}$/, `${name} must be an integer between ${min} and ${max}.`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be an integer between ${min} and ${max}.`);

const sortPattern = new RegExp(`^(${OFFER_SORT_FIELDS.join('|')})(?::(asc|desc))?$`, 'i');
const sortText = z
  .string()
  .regex(sortPattern, `_sort must be one of ${OFFER_SORT_FIELDS.join(', ')}, optionally followed by :ASC or :DESC.`)
  .refine((text) => (OFFER_SORT_FIELDS as readonly string[]).includes(text.split(':')[0] ?? ''), {
    message: `_sort field must be one of ${OFFER_SORT_FIELDS.join(', ')} (lower case).`,
  })
  .transform((text) => {
    const [field, direction = 'ASC'] = text.split(':');
    return { field: field as OfferSortField, direction: direction.toUpperCase() as SortDirection };
  });

export const offerQueryParameters = z.strictObject({
  _limit: integerText('_limit', 1, MAX_LIMIT).optional(),
  _start: integerText('_start', 0, MAX_START).optional(),
  _sort: sortText.optional(),
  competitiveness: z.string().min(1, 'competitiveness must not be empty.').max(32, 'competitiveness is at most 32 characters.').optional(),
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
