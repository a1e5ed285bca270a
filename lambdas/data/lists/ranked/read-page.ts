import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { ReadStats } from '../../table/read-stats.js';
import { keyAttributeOf, originOfListing, readListingRange, recordOfListing, type ListingOrigin } from './listings.js';
import { readNodes, type NodeLocation } from './node-store.js';
import { filteredCount, FIRST_BOUND, type RankNode } from './nodes.js';
import type { ListFilter, RankedList } from './ranked-list.js';

export interface PageRequest {
  readonly order: string;
  readonly direction: 'ASC' | 'DESC';
  readonly filter: ListFilter;
  readonly start: number;
  readonly limit: number;
}

export interface Page<R> {
  readonly total: number;
  readonly records: R[];
  /** Where each record's canonical item is, when its listing names it (in the order of `records`). */
  readonly origins: (ListingOrigin | undefined)[];
  readonly stats: ReadStats;
}

interface Located {
  readonly index: number;
  /** Matching items before the node. */
  readonly before: number;
}

/** The node holding the matching item at ascending position `position`, and the matches before it. */
const locate = (nodes: readonly RankNode[], counts: readonly number[], position: number, offset = 0): Located => {
  let before = offset;
  for (let index = 0; index < nodes.length; index++) {
    const count = counts[index] ?? 0;
    if (position < before + count) return { index, before };
    before += count;
  }
  return { index: nodes.length - 1, before: before - (counts.at(-1) ?? 0) };
};

/**
 * One page of a ranked list in three round trips, whatever the list's size or `start`:
 *  1. the order's chunk nodes give the exact total and the chunks holding the page;
 *  2. the bucket nodes of those chunks give the buckets holding the page;
 *  3. one Query per selected cell reads those buckets' listing items (in parallel), which
 *     are merged in key order and cut to the page.
 * What is read beyond the page is at most the part of the first bucket before `start` and
 * the part of the last after the page (docs/data-model.md), plus, with a histogram filter,
 * the items in between that fail it.
 */
export const readRankedPage = async <S, R>(clientId: string, list: RankedList<S, R>, request: PageRequest): Promise<Page<R>> => {
  const stats = new ReadStats();
  const at = (level: 'b' | 'c'): NodeLocation => ({ clientId, tag: list.tag, order: request.order, level });
  const { filter } = request;

  const chunks = await readNodes(at('c'), {}, { consistent: false, stats });
  const chunkCounts = chunks.map((chunk) => filteredCount(chunk, filter));
  const total = chunkCounts.reduce((sum, n) => sum + n, 0);
  const size = Math.min(request.limit, total - request.start);
  if (size <= 0) return { total, records: [], origins: [], stats };
  // Positions count in ascending key order; a descending page is the mirror image.
  const first = request.direction === 'ASC' ? request.start : total - request.start - size;
  const last = first + size - 1;

  const firstChunk = locate(chunks, chunkCounts, first);
  const lastChunk = locate(chunks, chunkCounts, last);
  const below = chunks[lastChunk.index]?.hi;
  const buckets = await readNodes(at('b'), { from: chunks[firstChunk.index]!.lo, ...(below === undefined ? {} : { below }) }, { consistent: false, stats });
  const bucketCounts = buckets.map((bucket) => filteredCount(bucket, filter));
  const firstBucket = locate(buckets, bucketCounts, first, firstChunk.before);
  const lastBucket = locate(buckets, bucketCounts, last, firstChunk.before);
  const span = buckets.slice(firstBucket.index, lastBucket.index + 1);
  const from = span[0]!.lo;
  const to = span.at(-1)!.hi;

  const cells = [...new Set(span.flatMap((bucket) => [...bucket.counts.keys()]))].filter(filter.cells);
  const prefix = filter.gte === undefined ? undefined : list.orders[request.order]?.histogramPrefix?.(filter.gte);
  const lower = [from === FIRST_BOUND ? undefined : from, prefix]
    .filter((k): k is string => k !== undefined)
    .sort()
    .at(-1);
  const perCell = await stats.together(
    cells.map((cell) => (cellStats: ReadStats) => {
      const evaluate = span.reduce((sum, bucket) => sum + (bucket.counts.get(cell) ?? 0), 0);
      if (evaluate <= 0) return Promise.resolve([]);
      return readListingRange(clientId, list, request.order, cell, {
        ...(lower === undefined ? {} : { from: lower }),
        ...(to === undefined ? {} : { below: to }),
        limit: evaluate,
        ...(filter.gte === undefined ? {} : { gte: filter.gte }),
        consistent: false,
        stats: cellStats,
      });
    }),
  );

  const attribute = keyAttributeOf(list, request.order);
  const keyOf = (item: Record<string, NativeAttributeValue>) => String(item[attribute]);
  const merged = perCell.flat().sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const page = merged.slice(first - firstBucket.before, first - firstBucket.before + size);
  if (request.direction === 'DESC') page.reverse();
  return { total, records: page.map((item) => recordOfListing(list, item)), origins: page.map(originOfListing), stats };
};
