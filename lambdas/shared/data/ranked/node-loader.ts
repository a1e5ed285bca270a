import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../dynamo.js';
import { partitionOf, readNodes, type NodeLocation } from './node-store.js';
import { decodeNode, emptyNode, FIRST_BOUND, nodeIndexOf, type RankNode } from './nodes.js';

/**
 * The nodes of one order a write needs, read consistently: every chunk, and the buckets of the
 * chunks that hold the given keys. An order with no nodes yet gets its first chunk and bucket
 * (in memory; `fresh` tells the writer they must not exist yet).
 */
export interface LoadedOrder {
  readonly chunks: RankNode[];
  /** Buckets per chunk, by the chunk's `lo`. */
  readonly buckets: Map<string, RankNode[]>;
  /** Nodes created in memory, by level and `lo`. */
  readonly fresh: Set<string>;
}

export const freshKey = (level: 'b' | 'c', lo: string) => `${level}:${lo}`;

export const loadOrder = async (base: Omit<NodeLocation, 'level'>, keys: readonly string[], withHistogram: boolean): Promise<LoadedOrder> => {
  const fresh = new Set<string>();
  let chunks = await readNodes({ ...base, level: 'c' }, {}, { consistent: true });
  if (chunks.length === 0) {
    chunks = [emptyNode(FIRST_BOUND, withHistogram)];
    fresh.add(freshKey('c', FIRST_BOUND));
  }
  const wanted = new Set(keys.map((key) => nodeIndexOf(chunks, key)));
  const buckets = new Map<string, RankNode[]>();
  await Promise.all(
    [...wanted].map(async (index) => {
      const chunk = chunks[index]!;
      const found = await readNodes({ ...base, level: 'b' }, { from: chunk.lo, ...(chunk.hi === undefined ? {} : { below: chunk.hi }) }, { consistent: true });
      if (found.length === 0 || found[0]!.lo !== chunk.lo) {
        // Only an order that has no nodes at all lacks its chunk's first bucket.
        found.unshift(emptyNode(chunk.lo, withHistogram, found[0]?.lo ?? chunk.hi));
        fresh.add(freshKey('b', chunk.lo));
      }
      buckets.set(chunk.lo, found);
    }),
  );
  return { chunks, buckets, fresh };
};

/** The node of one level that covers `key`, read consistently; the first node when none exists yet. */
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
