import { BatchGetCommand, BatchWriteCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo.js';
import { AGAIN, retrying } from './retry.js';

type Key = Record<string, NativeAttributeValue>;
type Item = Record<string, NativeAttributeValue>;

const BATCH_GET_LIMIT = 100;
const BATCH_WRITE_LIMIT = 25;

const chunks = <T>(values: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(values.length / size) }, (_, i) => values.slice(i * size, (i + 1) * size));

export const keyString = (key: { pk: unknown; sk: unknown }) => `${String(key.pk)}\u0000${String(key.sk)}`;

/**
 * Reads items by key, 100 a call, retrying UnprocessedKeys; missing items are left out. A key
 * asked for twice is read once (DynamoDB refuses a batch that names a key twice, and a caller's
 * keys may repeat: two listings of one offer in a corrupted list, say).
 */
export const batchGet = async (keys: readonly Key[], consistent = true): Promise<Item[]> => {
  const found: Item[] = [];
  const distinct = [...new Map(keys.map((key) => [keyString(key as { pk: unknown; sk: unknown }), key])).values()];
  for (const chunk of chunks(distinct, BATCH_GET_LIMIT)) {
    let pending: Key[] = chunk;
    await retrying('BatchGetItem', async () => {
      const result = await documentClient.send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: consistent } } }));
      found.push(...(result.Responses?.[tableName()] ?? []));
      pending = (result.UnprocessedKeys?.[tableName()]?.Keys ?? []) as Key[];
      return pending.length > 0 ? AGAIN : undefined;
    });
  }
  return found;
};

export type WriteRequest = { readonly put: Item } | { readonly delete: Key };

/**
 * Writes items 25 a call, several calls at a time, retrying UnprocessedItems. Requests must
 * name distinct keys (DynamoDB refuses a batch that writes one key twice).
 */
export const batchWrite = async (requests: readonly WriteRequest[], parallel = 4): Promise<void> => {
  const queue = chunks(requests, BATCH_WRITE_LIMIT);
  const worker = async () => {
    for (let chunk = queue.shift(); chunk; chunk = queue.shift()) {
      let pending = chunk.map((r) => ('put' in r ? { PutRequest: { Item: r.put } } : { DeleteRequest: { Key: r.delete } }));
      await retrying('BatchWriteItem', async () => {
        const result = await documentClient.send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
        pending = (result.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
        return pending.length > 0 ? AGAIN : undefined;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, worker));
};
