import { QueryCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo.js';
import type { ReadStats } from './read-stats.js';

type Key = Record<string, NativeAttributeValue>;

/** Every item of a key range, page by page (1 MB each), until `enough` says the rest is not needed. */
export const queryPages = async (
  stats: ReadStats,
  input: { condition: string; values: Record<string, NativeAttributeValue>; forward: boolean; limit?: number },
  enough: (items: readonly Record<string, unknown>[]) => boolean = () => false,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let start: Key | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: input.condition,
        ExpressionAttributeValues: input.values,
        ScanIndexForward: input.forward,
        ReturnConsumedCapacity: 'TOTAL',
        ...(input.limit === undefined ? {} : { Limit: input.limit }),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    stats.record(page.ConsumedCapacity);
    stats.roundTrips += 1;
    items.push(...(page.Items ?? []));
    start = input.limit === undefined && !enough(page.Items ?? []) ? page.LastEvaluatedKey : undefined;
  } while (start);
  return items;
};
