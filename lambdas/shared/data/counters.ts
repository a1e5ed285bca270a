import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo.js';
import { counterKey } from './keys.js';

export type CounterName = 'repricer' | 'offer' | 'product' | 'connector';

/**
 * Reserves `count` consecutive ids with one atomic ADD and returns the first. Ids are unique and
 * increasing; a write that fails after reserving leaves a gap, which is harmless.
 */
export const reserveIds = async (name: CounterName, count = 1): Promise<number> => {
  const result = await documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: counterKey(name),
      UpdateExpression: 'ADD #value :count',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':count': count },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const last = Number(result.Attributes?.value);
  if (!Number.isSafeInteger(last)) throw new Error(`Counter ${name} returned no value`);
  return last - count + 1;
};
