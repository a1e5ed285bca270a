import { listingPartition, nodePartition } from '../../../../../lambdas/data/table/keys.js';
import { listingItem, placeOfListing } from '../../../../../lambdas/data/lists/ranked/listings.js';
import { addToNode, decodeNode, emptyNode, FIRST_BOUND, nodeItem, type RankNode } from '../../../../../lambdas/data/lists/ranked/nodes.js';
import type { OrderNodes } from '../../../../support/rank-check.js';
import { placeOf, type RankedList } from '../../../../../lambdas/data/lists/ranked/ranked-list.js';
import type { FakeTable } from '../../fake-table.js';

export interface Layout {
  /** Items per bucket when the bounds were laid out. */
  readonly bucketSize: number;
  /** Buckets per chunk. */
  readonly chunkSize: number;
}

/**
 * Writes a ranked list as the maintainer leaves it: one listing item per listed source, and
 * for every order buckets and chunks whose bounds were laid out over `laidOut` (which may hold
 * more sources than are listed now, so some nodes count fewer items or none) and whose counts
 * are exact for `listed`.
 */
export const seedList = <S, R>(
  table: FakeTable,
  clientId: string,
  list: RankedList<S, R>,
  listed: readonly S[],
  recordOf: (source: S) => R,
  layout: Layout,
  laidOut: readonly S[] = listed,
): { buckets: Map<string, RankNode[]>; chunks: Map<string, RankNode[]> } => {
  for (const source of listed) table.put(listingItem(clientId, list, placeOf(list, source), recordOf(source), 'src'));
  const withHistogram = list.histogramOf !== undefined;
  const result = { buckets: new Map<string, RankNode[]>(), chunks: new Map<string, RankNode[]>() };
  if (laidOut.length === 0) return result;
  for (const order of Object.keys(list.orders)) {
    const keys = laidOut.map((source) => placeOf(list, source).keys[order]!).sort();
    const bucketLos = keys.filter((_, i) => i % layout.bucketSize === 0).map((key, i) => (i === 0 ? FIRST_BOUND : key));
    const chunkLos = bucketLos.filter((_, i) => i % layout.chunkSize === 0);
    const build = (los: string[]) => los.map((lo, i) => emptyNode(lo, withHistogram, los[i + 1]));
    const buckets = build(bucketLos);
    const chunks = build(chunkLos);
    for (const source of listed) {
      const place = placeOf(list, source);
      const key = place.keys[order]!;
      for (const nodes of [buckets, chunks]) addToNode(nodes.filter((node) => node.lo <= key).at(-1)!, place.cell, place.g, 1);
    }
    for (const [level, nodes] of [
      ['b', buckets],
      ['c', chunks],
    ] as const) {
      for (const node of nodes) table.put(nodeItem(nodePartition(clientId, list.tag, order, level), { ...node, v: 1 }));
    }
    result.buckets.set(order, buckets);
    result.chunks.set(order, chunks);
  }
  return result;
};

/** The list's listing places and nodes as the fake table holds them, for nodeDiscrepancies. */
export const listState = <S, R>(table: FakeTable, clientId: string, list: RankedList<S, R>) => {
  const places = table.withPrefix(listingPartition(clientId, list.tag, '')).map((item) => placeOfListing(list, item));
  const nodes = new Map<string, OrderNodes>(
    Object.keys(list.orders).map((order) => [
      order,
      {
        buckets: table.partition(nodePartition(clientId, list.tag, order, 'b')).map(decodeNode),
        chunks: table.partition(nodePartition(clientId, list.tag, order, 'c')).map(decodeNode),
      },
    ]),
  );
  return { places, nodes };
};
