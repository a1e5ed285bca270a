import { QueryCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo.js';

type Item = Record<string, NativeAttributeValue>;

export interface PartitionRead {
  /** Only the items whose sort key begins with this. */
  readonly prefix?: string;
  /** Ask for the consumed capacity too (the read meters of the benchmarks count it). */
  readonly capacity?: boolean;
}

/** Every item of one partition, read consistently, page after page. */
export const readPartition = async (pk: string, read: PartitionRead = {}): Promise<Item[]> => {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: read.prefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ...(read.prefix === undefined ? {} : { ':prefix': read.prefix }) },
        ConsistentRead: true,
        ...(read.capacity ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};
