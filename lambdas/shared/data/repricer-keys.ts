import type { RepricerSortField } from '../domain/repricer-query.js';
import { RANK_INDEXES, REPRICER_INDEXES } from '../../../lib/table-schema.js';
import { part, repricerDirectoryKey, repricerViewPartition } from './keys.js';
import { idKey, millisPrefix, SORT_STORAGE } from './offer-keys.js';
import type { RankOrder, SortStorage } from './rank-order.js';

/**
 * The views a repricer is listed in, one per combination of the list filters: `enabled` (any,
 * or its value) by `product_code` (any, or its code). Each view is ranked in three orders, with
 * the same fixed-width keys as offers (every key ends with the id key, so ties break by id).
 */
export const repricerViewName = (enabled: boolean | undefined, productCode: string | undefined): string =>
  `${enabled === undefined ? '*' : String(enabled)}#${productCode === undefined ? '*' : `=${part(productCode)}`}`;

export const repricerViewsOf = (repricer: { enabled: boolean; product: { code: string } }): string[] =>
  [undefined, repricer.enabled].flatMap((enabled) =>
    [undefined, repricer.product.code].map((code) => repricerViewName(enabled, code)));

export interface SortableRepricer {
  readonly id: number;
  readonly created_at: string;
  readonly updated_at: string;
}

export const repricerSortKeyOf = (repricer: SortableRepricer, field: RepricerSortField): string => {
  const id = idKey(repricer.id);
  switch (field) {
    case 'id':
      return id;
    case 'updated_at':
      return millisPrefix(repricer.updated_at) + id;
    case 'created_at':
      return millisPrefix(repricer.created_at) + id;
  }
};

/** `id` and `updated_at` share the offer orders' attributes and indexes; `created_at` has its own. */
export const REPRICER_SORT_STORAGE: Record<RepricerSortField, SortStorage> = {
  id: SORT_STORAGE.id,
  updated_at: SORT_STORAGE.updated_at,
  created_at: {
    pageIndex: REPRICER_INDEXES.byCreated.indexName,
    pageAttribute: REPRICER_INDEXES.byCreated.sortKey,
    rankIndex: RANK_INDEXES.rankByCreated.indexName,
    rankAttribute: RANK_INDEXES.rankByCreated.sortKey,
  },
};

const repricerRankOrder = (sort: RepricerSortField): RankOrder => ({
  storage: REPRICER_SORT_STORAGE[sort],
  viewPartition: repricerViewPartition,
  directoryKey: (clientId, view) => repricerDirectoryKey(clientId, view, sort),
});

export const REPRICER_RANK_ORDERS: Record<RepricerSortField, RankOrder> = {
  id: repricerRankOrder('id'),
  updated_at: repricerRankOrder('updated_at'),
  created_at: repricerRankOrder('created_at'),
};
