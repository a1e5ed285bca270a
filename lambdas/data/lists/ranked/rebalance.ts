import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../table/dynamo.js';
import { cancellationReasons } from '../../table/transactions.js';
import { loadOrder } from './node-loader.js';
import { nodeActions, type Level, type NodeLocation, type NodeWrite, type TransactItem } from './node-store.js';
import { addNode, addToNode, copyNode, emptyNode, totalOf, type RankNode } from './nodes.js';

/**
 * Keeps every bucket and chunk near its target size: a bucket over BUCKET_MAX items is split
 * (its keys read from the listing), adjacent buckets that fit in BUCKET_TARGET together are
 * merged, and chunks likewise by their number of buckets. Each split or merge is one
 * transaction, conditioned on the versions it was computed from, so bounds and counts never
 * disagree; one that loses a race is simply left for the next write.
 */
export const BUCKET_MAX = 48;
export const BUCKET_TARGET = 24;
export const CHUNK_MAX = 128;
export const CHUNK_TARGET = 64;
/** New nodes per split: the rest stays in the last piece and is split by a later pass. */
const MAX_PIECES = 40;
const TRANSACTION_LIMIT = 100;

export interface ListedEntry {
  readonly key: string;
  readonly cell: string;
  readonly g?: number;
}

/** Every listed item of `cells` with a key in [lo, hi), in one order; undefined when the listing cannot confirm the counts. */
export type EntryReader = (lo: string, hi: string | undefined, expected: ReadonlyMap<string, number>) => Promise<ListedEntry[] | undefined>;

type Operation = { readonly level: Level; readonly writes: NodeWrite[] }[];

const withHi = (node: RankNode, hi: string | undefined): RankNode => {
  const copy = copyNode(node);
  if (hi === undefined) delete copy.hi;
  else copy.hi = hi;
  return copy;
};

/** Merges runs of neighbours that fit in `target` together, within one list of nodes. */
const mergeRuns = (nodes: readonly RankNode[], level: Level, size: (node: RankNode) => number, target: number): Operation[] => {
  const operations: Operation[] = [];
  for (let i = 0; i < nodes.length - 1;) {
    let j = i + 1;
    let sum = size(nodes[i]!);
    while (j < nodes.length && sum + size(nodes[j]!) <= target) sum += size(nodes[j++]!);
    if (j === i + 1) {
      i++;
      continue;
    }
    const merged = withHi(nodes[i]!, nodes[j - 1]!.hi);
    for (const absorbed of nodes.slice(i + 1, j)) addNode(merged, absorbed);
    operations.push([{ level, writes: [{ put: merged, expected: nodes[i]!.v }, ...nodes.slice(i + 1, j).map((n) => ({ delete: n.lo, expected: n.v }))] }]);
    i = j;
  }
  return operations;
};

/** Splits one bucket into pieces of BUCKET_TARGET items, from its listed keys. */
const splitBucket = (bucket: RankNode, entries: readonly ListedEntry[], withHistogram: boolean): Operation => {
  const sorted = [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const pieces = Math.min(MAX_PIECES, Math.ceil(sorted.length / BUCKET_TARGET));
  const writes: NodeWrite[] = [];
  for (let p = 0; p < pieces; p++) {
    const members = sorted.slice(p * BUCKET_TARGET, p === pieces - 1 ? sorted.length : (p + 1) * BUCKET_TARGET);
    const next = sorted[(p + 1) * BUCKET_TARGET];
    const lo = p === 0 ? bucket.lo : members[0]!.key;
    const node = emptyNode(lo, withHistogram, p === pieces - 1 ? bucket.hi : next?.key);
    for (const entry of members) addToNode(node, entry.cell, entry.g, 1);
    node.q = bucket.q;
    writes.push(p === 0 ? { put: node, expected: bucket.v } : { put: node, expected: null });
  }
  return [{ level: 'b', writes }];
};

/** Splits one chunk into chunks of CHUNK_TARGET buckets. */
const splitChunk = (chunk: RankNode, buckets: readonly RankNode[], withHistogram: boolean): Operation => {
  const writes: NodeWrite[] = [];
  for (let start = 0; start < buckets.length; start += CHUNK_TARGET) {
    const members = buckets.slice(start, start + CHUNK_TARGET);
    const next = buckets[start + CHUNK_TARGET];
    const node = emptyNode(start === 0 ? chunk.lo : members[0]!.lo, withHistogram, next === undefined ? chunk.hi : next.lo);
    for (const bucket of members) addNode(node, bucket);
    node.q = chunk.q;
    writes.push(start === 0 ? { put: node, expected: chunk.v } : { put: node, expected: null });
  }
  return [{ level: 'c', writes }];
};

/** Commits operations, several to a transaction; returns how many committed. */
const commit = async (base: Omit<NodeLocation, 'level'>, operations: readonly Operation[]): Promise<number> => {
  let committed = 0;
  const batches: Operation[][] = [];
  for (const operation of operations) {
    const size = operation.reduce((sum, part) => sum + part.writes.length, 0);
    const batch = batches.at(-1);
    const used = batch?.reduce((sum, op) => sum + op.reduce((s, part) => s + part.writes.length, 0), 0) ?? TRANSACTION_LIMIT;
    if (batch && used + size <= TRANSACTION_LIMIT) batch.push(operation);
    else batches.push([operation]);
  }
  for (const batch of batches) {
    const items: TransactItem[] = batch.flatMap((operation) => operation.flatMap((part) => nodeActions({ ...base, level: part.level }, part.writes)));
    try {
      await documentClient.send(new TransactWriteCommand({ TransactItems: items }));
      committed += batch.length;
    } catch (error) {
      // Another writer changed one of these nodes: they are rebalanced by a later write.
      if (!cancellationReasons(error)) throw error;
    }
  }
  return committed;
};

/**
 * Rebalances the buckets of the given chunks, then (reloaded) the chunks themselves. Runs a
 * few passes so a bucket far over its size (after a rebuild) ends up in pieces of the target.
 */
export const rebalanceOrder = async (
  base: Omit<NodeLocation, 'level'>,
  keys: readonly string[],
  readEntries: EntryReader,
  withHistogram: boolean,
  passes = 4,
): Promise<void> => {
  for (let pass = 0; pass < passes; pass++) {
    const loaded = await loadOrder(base, keys, withHistogram, true);
    if (loaded.fresh.size > 0) return;
    const bucketOps: Operation[] = [];
    for (const buckets of loaded.buckets.values()) {
      bucketOps.push(...mergeRuns(buckets, 'b', totalOf, BUCKET_TARGET));
      for (const bucket of buckets) {
        if (totalOf(bucket) <= BUCKET_MAX) continue;
        const entries = await readEntries(bucket.lo, bucket.hi, bucket.counts);
        if (entries) bucketOps.push(splitBucket(bucket, entries, withHistogram));
      }
    }
    const chunkOps: Operation[] = [];
    for (const chunk of loaded.chunks) {
      const buckets = loaded.buckets.get(chunk.lo);
      if (buckets && buckets.length > CHUNK_MAX) chunkOps.push(splitChunk(chunk, buckets, withHistogram));
    }
    const bucketCounts = new Map([...loaded.buckets].map(([lo, buckets]) => [lo, buckets.length]));
    const loadedChunks = loaded.chunks.filter((chunk) => bucketCounts.has(chunk.lo));
    // Only neighbours whose buckets are both loaded can be merged; others wait for a write there.
    for (const run of contiguousRuns(loaded.chunks, loadedChunks)) {
      chunkOps.push(...mergeRuns(run, 'c', (chunk) => bucketCounts.get(chunk.lo) ?? CHUNK_TARGET, CHUNK_TARGET));
    }
    // Bucket changes first: a chunk split must only use bucket bounds that exist.
    if (bucketOps.length > 0) {
      await commit(base, bucketOps);
      continue;
    }
    if (chunkOps.length === 0) return;
    await commit(
      base,
      chunkOps.filter((op) => op.length > 0),
    );
  }
};

/** The runs of `subset` that are neighbours in `all`. */
const contiguousRuns = (all: readonly RankNode[], subset: readonly RankNode[]): RankNode[][] => {
  const wanted = new Set(subset);
  const runs: RankNode[][] = [];
  let run: RankNode[] = [];
  for (const node of all) {
    if (wanted.has(node)) run.push(node);
    else if (run.length > 0) {
      runs.push(run);
      run = [];
    }
  }
  if (run.length > 0) runs.push(run);
  return runs;
};
