import { GLOBAL_SECONDARY_INDEXES, LOCAL_SECONDARY_INDEXES } from '../../../lib/table-schema.js';
import { REPRICER_SORT_FIELDS } from '../../../lambdas/shared/domain/repricer-query.js';
import { repricerRankEntries } from '../../../lambdas/shared/data/repricer-items.js';
import {
  REPRICER_RANK_ORDERS,
  REPRICER_SORT_STORAGE,
  repricerSortKeyOf,
  repricerViewName,
  repricerViewsOf,
} from '../../../lambdas/shared/data/repricer-keys.js';

describe('repricer views', () => {
  it.each<[boolean | undefined, string | undefined, string]>([
    [undefined, undefined, '*#*'],
    [true, undefined, 'true#*'],
    [false, 'SKU-1', 'false#=SKU-1'],
    [undefined, 'a#b/c d', '*#=a%23b%2Fc%20d'],
  ])('names the view of enabled=%p and product_code=%p %s', (enabled, code, view) => {
    expect(repricerViewName(enabled, code)).toBe(view);
  });

  it('lists a repricer in the four views of its filter combinations', () => {
    expect(repricerViewsOf({ enabled: false, product: { code: 'P#1' } })).toEqual(['*#*', '*#=P%231', 'false#*', 'false#=P%231']);
  });

  it('counts a repricer in 4 views x 3 orders', () => {
    const entries = repricerRankEntries({ id: 5, enabled: true, product: { code: 'P' }, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-02T00:00:00.000Z' } as never);

    expect(entries.size).toBe(12);
    expect(entries.get('true#=P|id')).toBe('00000005');
  });
});

describe('repricer sort keys', () => {
  const repricer = (id: number, created: string, updated = created) => ({ id, created_at: created, updated_at: updated });

  it('orders timestamps by time and ties by id, as strings', () => {
    const sorted = [
      repricer(3, '2026-01-01T00:00:00.000Z'),
      repricer(12, '2026-01-01T00:00:00.000Z'),
      repricer(2, '2026-01-01T00:00:00.001Z'),
      repricer(1, '2027-06-30T23:59:59.999Z'),
    ];

    for (const field of ['created_at', 'updated_at'] as const) {
      const keys = sorted.map((r) => repricerSortKeyOf(r, field));
      expect([...keys].sort()).toEqual(keys);
      expect(new Set(keys.map((k) => k.length))).toEqual(new Set([17]));
    }
  });

  it('keys the id order by the id alone', () => {
    expect(repricerSortKeyOf(repricer(36, '2026-01-01T00:00:00.000Z'), 'id')).toBe('00000010');
  });

  it('keys created_at and updated_at separately', () => {
    const r = repricer(1, '2026-01-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z');
    expect(repricerSortKeyOf(r, 'created_at') < repricerSortKeyOf(r, 'updated_at')).toBe(true);
  });
});

describe('repricer sort storage', () => {
  it.each(REPRICER_SORT_FIELDS)('%s reads pages and ranks from indexes of the table schema', (field) => {
    const storage = REPRICER_SORT_STORAGE[field];
    const rank = LOCAL_SECONDARY_INDEXES.find((index) => index.indexName === storage.rankIndex);
    const page = GLOBAL_SECONDARY_INDEXES.find((index) => index.indexName === storage.pageIndex);

    expect(rank?.sortKey).toBe(storage.rankAttribute);
    if (field === 'id') expect([storage.pageIndex, storage.pageAttribute]).toEqual([undefined, 'sk']);
    else expect(page?.sortKey).toBe(storage.pageAttribute);
  });

  it('keeps repricer directories and views apart from offer ones', () => {
    expect(REPRICER_RANK_ORDERS.created_at.viewPartition('c1', '*#*')).toBe('T#c1#RV#*#*');
    expect(REPRICER_RANK_ORDERS.updated_at.directoryKey('c1', 'true#*')).toEqual({ pk: 'T#c1#RDIR#true#*', sk: 'updated_at' });
    expect(REPRICER_RANK_ORDERS.id.histogramPrefix).toBeUndefined();
  });
});
