import * as z from 'zod';
import { DEFAULT_LIMIT, integerText, limitText, sortText, startText, type SortDirection } from './list-parameters.js';
import { PRICE_CHANGE_REASON_VALUES, PRICE_CHANGE_STATUSES, productCode, type PriceChange, type PriceChangeStatus } from './records.js';

export const PRICE_CHANGE_SORT_FIELDS = ['id', 'created_at'] as const;
export type PriceChangeSortField = (typeof PRICE_CHANGE_SORT_FIELDS)[number];

/** What the data layer needs to answer `GET /v1/price-changes` (or a repricer's price changes). */
export interface PriceChangeQuery {
  readonly repricerId?: number;
  readonly productCode?: string;
  readonly reason?: PriceChange['reason'];
  readonly status?: PriceChangeStatus;
  readonly sort: { readonly field: PriceChangeSortField; readonly direction: SortDirection };
  readonly limit: number;
  readonly start: number;
}

const listParameters = {
  _limit: limitText.optional(),
  _start: startText.optional(),
  _sort: sortText(PRICE_CHANGE_SORT_FIELDS).optional(),
  reason: z.enum(PRICE_CHANGE_REASON_VALUES, { message: `reason must be one of ${PRICE_CHANGE_REASON_VALUES.join(', ')}.` }).optional(),
  status: z.enum(PRICE_CHANGE_STATUSES, { message: `status must be one of ${PRICE_CHANGE_STATUSES.join(', ')}.` }).optional(),
};

/** `GET /v1/price-changes`: unknown parameters are refused by the strict object, repeated ones by the HTTP layer. */
export const priceChangeQueryParameters = z.strictObject({
  ...listParameters,
  repricer_id: integerText('repricer_id', 1, Number.MAX_SAFE_INTEGER).optional(),
  product_code: productCode.optional(),
});

/** `GET /v1/repricers/{id}/price-changes`: the repricer is the path's. */
export const repricerPriceChangeQueryParameters = z.strictObject({ ...listParameters, product_code: productCode.optional() });

export const planPriceChangeQuery = (
  params: z.output<typeof priceChangeQueryParameters> | z.output<typeof repricerPriceChangeQueryParameters>,
  repricerId?: number,
): PriceChangeQuery => {
  const id = repricerId ?? ('repricer_id' in params ? params.repricer_id : undefined);
  return {
    ...(id === undefined ? {} : { repricerId: id }),
    ...(params.product_code === undefined ? {} : { productCode: params.product_code }),
    ...(params.reason === undefined ? {} : { reason: params.reason }),
    ...(params.status === undefined ? {} : { status: params.status }),
    sort: params._sort ?? { field: 'id', direction: 'ASC' },
    limit: params._limit ?? DEFAULT_LIMIT,
    start: params._start ?? 0,
  };
};
