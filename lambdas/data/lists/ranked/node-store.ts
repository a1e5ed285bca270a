import { DeleteCommand, PutCommand, QueryCommand, type NativeAttributeValue, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '../../table/batch.js';
import { mapLimit } from '../../table/concurrency.js';
import { documentClient, tableName } from '../../table/dynamo.js';
import { nodePartition } from '../../table/keys.js';
import type { ReadStats } from '../../table/read-stats.js';
import { decodeNode, nodeItem, type RankNode } from './nodes.js';

export type Level = 'b' | 'c';

export interface NodeLocation {
  readonly clientId: string;
  readonly tag: string;
  readonly order: string;
  readonly level: Level;
}

export const partitionOf = (at: NodeLocation) => nodePartition(at.clientId, at.tag, at.order, at.level);

/**
 * The nodes of one level whose `lo` lies in [from, below), in key order (all of them without a
 * range). `below` is exclusive: a Query takes one sort-key condition, so BETWEEN reads it and
 * it is dropped here.
 */
export const readNodes = async (
  at: NodeLocation,
  range: { readonly from?: string; readonly below?: string },
  options: { readonly consistent: boolean; readonly stats?: ReadStats },
): Promise<RankNode[]> => {
  const values: Record<string, string> = { ':pk': partitionOf(at) };
  let condition = 'pk = :pk';
  if (range.from !== undefined && range.below !== undefined) {
    condition += ' AND sk BETWEEN :from AND :below';
    Object.assign(values, { ':from': range.from, ':below': range.below });
  } else if (range.from !== undefined) {
    condition += ' AND sk >= :from';
    values[':from'] = range.from;
  } else if (range.below !== undefined) {
    condition += ' AND sk < :below';
    values[':below'] = range.below;
  }
  const nodes: RankNode[] = [];
  let start: Record<string, NativeAttributeValue> | undefined;
  do {
    const result = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: condition,
        ExpressionAttributeValues: values,
        ConsistentRead: options.consistent,
        ReturnConsumedCapacity: 'TOTAL',
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    options.stats?.record(result.ConsumedCapacity);
    if (options.stats) options.stats.roundTrips += 1;
    for (const item of result.Items ?? []) if (range.below === undefined || String(item.sk) < range.below) nodes.push(decodeNode(item));
    start = result.LastEvaluatedKey;
  } while (start);
  return nodes;
};

/** A node write conditioned on the version it was computed from (`null`: the node must not exist yet). */
export type NodeWrite = { readonly put: RankNode; readonly expected: number | null } | { readonly delete: string; readonly expected: number };

const condition = (expected: number | null) =>
  expected === null ? { ConditionExpression: 'attribute_not_exists(pk)' } : { ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': expected } };

/**
 * Writes nodes, each conditioned on its expected version, all at once. A failed condition
 * (another writer changed the node) rejects with ConditionalCheckFailedException; the
 * caller re-reads and recomputes.
 */
export const writeNodes = async (at: NodeLocation, writes: readonly NodeWrite[]): Promise<void> => {
  const pk = partitionOf(at);
  await mapLimit(writes, (write) =>
    'put' in write
      ? documentClient.send(
          new PutCommand({ TableName: tableName(), Item: nodeItem(pk, { ...write.put, v: (write.expected ?? 0) + 1 }), ...condition(write.expected) }),
        )
      : documentClient.send(new DeleteCommand({ TableName: tableName(), Key: { pk, sk: write.delete }, ...condition(write.expected) })),
  );
};

/** Puts nodes in batches, without conditions: for a writer no other can race (see OrderState.flush). */
export const writeNodesUnconditionally = async (at: NodeLocation, writes: readonly NodeWrite[]): Promise<void> => {
  const pk = partitionOf(at);
  await batchWrite(
    writes.map((write) => ('put' in write ? { put: nodeItem(pk, { ...write.put, v: (write.expected ?? 0) + 1 }) } : { delete: { pk, sk: write.delete } })),
  );
};

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The writes as transaction items, for changes that must happen together (a split, a merge). */
export const nodeActions = (at: NodeLocation, writes: readonly NodeWrite[]): TransactItem[] => {
  const pk = partitionOf(at);
  return writes.map((write) =>
    'put' in write
      ? { Put: { TableName: tableName(), Item: nodeItem(pk, { ...write.put, v: (write.expected ?? 0) + 1 }), ...condition(write.expected) } }
      : { Delete: { TableName: tableName(), Key: { pk, sk: write.delete }, ...condition(write.expected) } },
  );
};
