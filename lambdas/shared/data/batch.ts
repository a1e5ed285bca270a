import { BatchGetCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo.js';

type Key = Record<string, string>;
type Item = Record<string, NativeAttributeValue>;

const BATCH_GET_LIMIT = 100;
const MAX_ATTEMPTS = 8;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const backoff = (attempt: number) => sleep(Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2));

/** Reads items by key, in chunks of 100, retrying UnprocessedKeys with backoff. */
export const batchGet = async (keys: readonly Key[], consistent = true): Promise<Item[]> => {
  const found: Item[] = [];
  for (let i = 0; i < keys.length; i += BATCH_GET_LIMIT) {
    let pending: Key[] | undefined = keys.slice(i, i + BATCH_GET_LIMIT);
    for (let attempt = 0; pending && pending.length > 0; attempt++) {
      if (attempt >= MAX_ATTEMPTS) throw new Error('BatchGet kept returning unprocessed keys');
      if (attempt > 0) await backoff(attempt);
      const result = await documentClient.send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: consistent } } }),
      );
      found.push(...(result.Responses?.[tableName()] ?? []));
      pending = result.UnprocessedKeys?.[tableName()]?.Keys as Key[] | undefined;
    }
  }
  return found;
};

export const keyString = (key: { pk: unknown; sk: unknown }) => `${String(key.pk)}\u0000${String(key.sk)}`;
