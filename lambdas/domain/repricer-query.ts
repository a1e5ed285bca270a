import * as z from 'zod';
import { DEFAULT_LIMIT, limitText, sortText, startText, type SortDirection } from './list-parameters.js';
import { productCode } from './records.js';

export const REPRICER_SORT_FIELDS = ['id', 'updated_at', 'created_at'] as const;
export type RepricerSortField = (typeof REPRICER_SORT_FIELDS)[number];

/** What the data layer needs to answer one `GET /v1/repricers`. */
export interface RepricerQuery {
  readonly enabled?: boolean;
  readonly productCode?: string;
  readonly sort: { readonly field: RepricerSortField; readonly direction: SortDirection };
  readonly limit: number;
  readonly start: number;
}

/** Unknown parameters are refused by the strict object; repeated ones by the HTTP layer. */
export const repricerQueryParameters = z.strictObject({
  _limit: limitText.optional(),
  _start: startText.optional(),
  _sort: sortText(REPRICER_SORT_FIELDS).optional(),
  enabled: z.enum(['true', 'false'], { message: 'enabled must be true or false.' }).optional(),
  product_code: productCode.optional(),
});

/** Every filter combines with every sort: each combination is a view of its own. */
export const planRepricerQuery = (params: z.output<typeof repricerQueryParameters>): RepricerQuery => ({
  ...(params.enabled === undefined ? {} : { enabled: params.enabled === 'true' }),
  ...(params.product_code === undefined ? {} : { productCode: params.product_code }),
  sort: params._sort ?? { field: 'id', direction: 'ASC' },
  limit: params._limit ?? DEFAULT_LIMIT,
  start: params._start ?? 0,
});
