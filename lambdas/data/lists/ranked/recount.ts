import { batchWrite } from '../../table/batch.js';
import { partitionOf, readNodes, writeNodes, type NodeLocation } from './node-store.js';
import { addToNode, emptyNode, FIRST_BOUND, nodeIndexOf, totalOf, type RankNode } from './nodes.js';
import { placeOfListing, readListingRange } from './listings.js';
import { nodeItem } from './nodes.js';
import type { ListingPlace, RankedList } from './ranked-list.js';
import { BUCKET_TARGET, CHUNK_TARGET } from './rebalance.js';

/**
 * Recounts every node of a list from its listing items (the last step of a rebuild). Nodes
 * whose bounds still form a valid two-level tree keep them and get exact counts, each written
 * on condition of the version read (a concurrent write makes the recount run again); a tree
 * that lost nodes or bounds is laid out afresh.
 */
export const readAllPlaces = async <S, R>(clientId: string, list: RankedList<S, R>, cells: Iterable<string>): Promise<ListingPlace[]> => {
  const places: ListingPlace[] = [];
  for (const cell of new Set(cells)) {
    for (const item of await readListingRange(clientId, list, 'id', cell, { consistent: true })) places.push(placeOfListing(list, item));
  }
  return places;
};

/** Cells any node of the id order counts. */
export const countedCells = async <S, R>(clientId: string, list: RankedList<S, R>): Promise<string[]> => {
  const chunks = await readNodes({ clientId, tag: list.tag, order: 'id', level: 'c' }, {}, { consistent: true });
  return [...new Set(chunks.flatMap((chunk) => [...chunk.counts.keys()]))];
};

const chained = (nodes: readonly RankNode[], lo: string, hi: string | undefined) =>
  nodes.length > 0 && nodes[0]!.lo === lo && nodes.every((node, i) => (i === nodes.length - 1 ? node.hi === hi : node.hi === nodes[i + 1]!.lo));

const recount = (nodes: readonly RankNode[], entries: readonly { key: string; cell: string; g?: number }[], withHistogram: boolean): RankNode[] => {
  const fresh = nodes.map((node) => ({ ...emptyNode(node.lo, withHistogram, node.hi), q: node.q, v: node.v }));
  for (const entry of entries) addToNode(fresh[nodeIndexOf(fresh, entry.key)]!, entry.cell, entry.g, 1);
  return fresh;
};

const sameCounts = (a: RankNode, b: RankNode) =>
  JSON.stringify([...a.counts].filter(([, n]) => n !== 0).sort()) === JSON.stringify([...b.counts].filter(([, n]) => n !== 0).sort()) &&
  JSON.stringify(a.hist ? [...a.hist].map(([c, v]) => [c, [...v].filter(([, n]) => n !== 0).sort()]).sort() : null) ===
    JSON.stringify(b.hist ? [...b.hist].map(([c, v]) => [c, [...v].filter(([, n]) => n !== 0).sort()]).sort() : null);

/** A fresh tree: buckets of BUCKET_TARGET keys, chunks of CHUNK_TARGET buckets. */
const layout = (entries: readonly { key: string; cell: string; g?: number }[], withHistogram: boolean): { buckets: RankNode[]; chunks: RankNode[] } => {
  const los = [FIRST_BOUND, ...entries.filter((_, i) => i > 0 && i % BUCKET_TARGET === 0).map((entry) => entry.key)];
  const buckets = los.map((lo, i) => emptyNode(lo, withHistogram, los[i + 1]));
  const chunkLos = los.filter((_, i) => i % CHUNK_TARGET === 0);
  const chunks = chunkLos.map((lo, i) => emptyNode(lo, withHistogram, chunkLos[i + 1]));
  return { buckets: recount(buckets, entries, withHistogram), chunks: recount(chunks, entries, withHistogram) };
};

export const recountOrder = async <S, R>(clientId: string, list: RankedList<S, R>, order: string, places: readonly ListingPlace[]): Promise<number> => {
  const withHistogram = list.histogramOf !== undefined;
  const entries = places
    .map((place) => ({ key: place.keys[order]!, cell: place.cell, ...(place.g === undefined ? {} : { g: place.g }) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const at = (level: 'b' | 'c'): NodeLocation => ({ clientId, tag: list.tag, order, level });
  const [chunks, buckets] = await Promise.all([readNodes(at('c'), {}, { consistent: true }), readNodes(at('b'), {}, { consistent: true })]);
  const valid =
    chained(chunks, FIRST_BOUND, undefined) &&
    chained(buckets, FIRST_BOUND, undefined) &&
    chunks.every((chunk) => buckets.some((bucket) => bucket.lo === chunk.lo));
  if (valid) {
    let written = 0;
    for (const [level, nodes] of [
      ['b', buckets],
      ['c', chunks],
    ] as const) {
      const counted = recount(nodes, entries, withHistogram);
      const changed = counted.filter((node, i) => !sameCounts(node, nodes[i]!));
      if (changed.length > 0)
        await writeNodes(
          at(level),
          changed.map((node) => ({ put: node, expected: node.v })),
        );
      written += changed.length;
    }
    return written;
  }
  const fresh = layout(entries, withHistogram);
  for (const [level, nodes, old] of [
    ['b', fresh.buckets, buckets],
    ['c', fresh.chunks, chunks],
  ] as const) {
    const pk = partitionOf(at(level));
    const kept = new Set(nodes.map((node) => node.lo));
    await batchWrite([
      ...nodes.map((node) => ({ put: nodeItem(pk, { ...node, v: (old.find((o) => o.lo === node.lo)?.v ?? 0) + 1 }) })),
      ...old.filter((node) => !kept.has(node.lo)).map((node) => ({ delete: { pk, sk: node.lo } })),
    ]);
  }
  return fresh.buckets.length + fresh.chunks.length;
};

export const totalCounted = (nodes: readonly RankNode[]) => nodes.reduce((sum, node) => sum + totalOf(node), 0);
