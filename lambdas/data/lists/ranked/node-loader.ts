import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../../table/dynamo.js';
import { mapLimit } from '../../table/concurrency.js';
import { partitionOf, readNodes, type Level, type NodeLocation } from './node-store.js';
import { decodeNode, emptyNode, FIRST_BOUND, nodeIndexOf, type RankNode } from './nodes.js';

/**
 * The nodes of one order a write needs, read consistently. To count, the chunk and the bucket
 * covering each key: for a few keys two small Queries a key; for more, every chunk (one Query:
 * the chunk level is small) and the covering bucket of each key. To split or merge
 * (`complete`), every chunk and every bucket of the chunks that hold the keys. An order with no
 * nodes yet gets its first chunk and bucket (in memory; `fresh` tells the writer they must not
 * exist yet).
 */
export interface LoadedOrder {
  /** Loaded chunks, in key order; with `complete`, every chunk of the order. */
  readonly chunks: RankNode[];
  /** Loaded buckets per chunk `lo`, in key order; with `complete`, every bucket of those chunks. */
  readonly buckets: Map<string, RankNode[]>;
  readonly complete: boolean;
  /** Nodes created in memory, as `<level>:<lo>`. */
  readonly fresh: Set<string>;
}

export const freshKey = (level: Level, lo: string) => `${level}:${lo}`;
/** Up to this many distinct keys, their chunks too are read one by one rather than all at once. */
const TARGETED_KEYS = 8;

/** The node of one level that covers `key`, read consistently; none when the order has no nodes yet. */
export const nodeCovering = async (at: NodeLocation, key: string): Promise<RankNode | undefined> => {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk <= :key',
      ExpressionAttributeValues: { ':pk': partitionOf(at), ':key': key },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const item = result.Items?.[0];
  return item ? decodeNode(item) : undefined;
};

const byLo = (nodes: Iterable<RankNode>) => [...new Map([...nodes].map((node) => [node.lo, node])).values()].sort((a, b) => (a.lo < b.lo ? -1 : 1));

/** A chunk holding at least this many of the keys has all its buckets read with one Query. */
const KEYS_FOR_A_RANGE_READ = 4;

const bucketsOfChunk = (base: Omit<NodeLocation, 'level'>, chunk: RankNode) =>
  readNodes({ ...base, level: 'b' }, { from: chunk.lo, ...(chunk.hi === undefined ? {} : { below: chunk.hi }) }, { consistent: true });

const loadTargeted = async (base: Omit<NodeLocation, 'level'>, keys: readonly string[], withHistogram: boolean): Promise<LoadedOrder> => {
  const few = keys.length <= TARGETED_KEYS;
  const chunks = few
    ? byLo((await mapLimit(keys, (key) => nodeCovering({ ...base, level: 'c' }, key))).flatMap((node) => (node ? [node] : [])))
    : await readNodes({ ...base, level: 'c' }, {}, { consistent: true });
  if (chunks.length === 0) {
    // Only an order with no nodes at all has no node covering a key.
    const fresh = new Set([freshKey('c', FIRST_BOUND), freshKey('b', FIRST_BOUND)]);
    return {
      chunks: [emptyNode(FIRST_BOUND, withHistogram)],
      buckets: new Map([[FIRST_BOUND, [emptyNode(FIRST_BOUND, withHistogram)]]]),
      complete: true,
      fresh,
    };
  }
  const keysByChunk = new Map<RankNode, string[]>();
  for (const key of keys) {
    const chunk = chunks[nodeIndexOf(chunks, key)]!;
    keysByChunk.set(chunk, [...(keysByChunk.get(chunk) ?? []), key]);
  }
  const buckets = new Map<string, RankNode[]>(chunks.map((chunk) => [chunk.lo, []]));
  const fresh = new Set<string>();
  await mapLimit([...keysByChunk], async ([chunk, inChunk]) => {
    const found =
      inChunk.length >= KEYS_FOR_A_RANGE_READ
        ? await bucketsOfChunk(base, chunk)
        : (await Promise.all(inChunk.map((key) => nodeCovering({ ...base, level: 'b' }, key)))).flatMap((node) => (node ? [node] : []));
    // A bucket found below the chunk belongs to an earlier one: the key's covering bucket in this
    // chunk is missing, which only a damaged order shows (its first bucket deleted). Counting
    // into a fresh first bucket keeps the write inside the chunk; a rebuild recounts it.
    const inside = byLo(found).filter((node) => node.lo >= chunk.lo);
    if (inside[0]?.lo !== chunk.lo && inChunk.some((key) => inside[0] === undefined || key < inside[0].lo)) {
      inside.unshift(emptyNode(chunk.lo, withHistogram, inside[0]?.lo ?? chunk.hi));
      fresh.add(freshKey('b', chunk.lo));
    }
    buckets.set(chunk.lo, inside);
  });
  return { chunks, buckets, complete: false, fresh };
};

const loadComplete = async (base: Omit<NodeLocation, 'level'>, keys: readonly string[], withHistogram: boolean): Promise<LoadedOrder> => {
  const fresh = new Set<string>();
  let chunks = await readNodes({ ...base, level: 'c' }, {}, { consistent: true });
  if (chunks.length === 0) {
    chunks = [emptyNode(FIRST_BOUND, withHistogram)];
    fresh.add(freshKey('c', FIRST_BOUND));
  }
  const wanted = [...new Set(keys.map((key) => nodeIndexOf(chunks, key)))];
  const buckets = new Map<string, RankNode[]>();
  await mapLimit(wanted, async (index) => {
    const chunk = chunks[index]!;
    const found = await bucketsOfChunk(base, chunk);
    if (found[0]?.lo !== chunk.lo) {
      // Only an order that has no nodes at all lacks its chunk's first bucket.
      found.unshift(emptyNode(chunk.lo, withHistogram, found[0]?.lo ?? chunk.hi));
      fresh.add(freshKey('b', chunk.lo));
    }
    buckets.set(chunk.lo, found);
  });
  return { chunks, buckets, complete: true, fresh };
};

export const loadOrder = (base: Omit<NodeLocation, 'level'>, keys: readonly string[], withHistogram: boolean, complete = false): Promise<LoadedOrder> => {
  const distinct = [...new Set(keys)];
  return complete ? loadComplete(base, distinct, withHistogram) : loadTargeted(base, distinct, withHistogram);
};
