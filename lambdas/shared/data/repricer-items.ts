import * as z from 'zod';
import { repricerRecord, type Repricer } from '../domain/records.js';
import { REPRICER_SORT_FIELDS, type RepricerSortField } from '../domain/repricer-query.js';
import { repricerKey, repricerSlotKey, repricerViewPartition } from './keys.js';
import { idKey } from './offer-keys.js';
import { REPRICER_SORT_STORAGE, repricerSortKeyOf, repricerViewsOf } from './repricer-keys.js';

/**
 * Item shapes of the repricer entity. The canonical item holds the API record and the version
 * its ETag names; each view item holds the same record under one view partition, keyed for
 * each sort order, so a page is one Query; the slot item guards (product, connector).
 */
export const storedRepricer = z.object({ record: repricerRecord, version: z.int().positive() });
export type StoredRepricer = z.infer<typeof storedRepricer>;

export const storedRepricerView = z.object({ record: repricerRecord });
export const toRepricer = (item: Record<string, unknown>): Repricer => storedRepricerView.parse(item).record;

export const repricerItem = (clientId: string, { record, version }: StoredRepricer) => ({
  ...repricerKey(clientId, record.id),
  entity: 'repricer',
  version,
  record,
});

export const slotKeyOf = (clientId: string, record: Repricer) =>
  repricerSlotKey(clientId, record.product.code, record.connector_type.uid);

export const slotItem = (clientId: string, record: Repricer) => ({ ...slotKeyOf(clientId, record), entity: 'repricerSlot', repricerId: record.id });

export const repricerViewKey = (clientId: string, view: string, id: number) => ({ pk: repricerViewPartition(clientId, view), sk: idKey(id) });

export const repricerViewItems = (clientId: string, record: Repricer) =>
  repricerViewsOf(record).map((view) => {
    // One attribute per sort order; the GSI and LSI of that order both key on it.
    const sortAttributes = Object.fromEntries(
      REPRICER_SORT_FIELDS.map((field) => [REPRICER_SORT_STORAGE[field].rankAttribute, repricerSortKeyOf(record, field)]),
    );
    return { view, item: { ...repricerViewKey(clientId, view, record.id), entity: 'repricerView', ...sortAttributes, record } };
  });

/** The rank directories (`<view>|<sort>`) a repricer state is counted in, with its key in each. */
export const repricerRankEntries = (record: Repricer | undefined): Map<string, string> => {
  const entries = new Map<string, string>();
  if (!record) return entries;
  for (const view of repricerViewsOf(record)) {
    for (const sort of REPRICER_SORT_FIELDS) entries.set(`${view}|${sort}`, repricerSortKeyOf(record, sort));
  }
  return entries;
};

export const splitRepricerDirectoryId = (id: string) => {
  const separator = id.lastIndexOf('|');
  return { view: id.slice(0, separator), sort: id.slice(separator + 1) as RepricerSortField };
};
