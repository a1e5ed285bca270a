import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo.js';
import { counterKey } from './keys.js';
import { AGAIN, retrying } from './retry.js';
import { isConditionFailure } from './conditions.js';
import { now as clockNow } from '../../config/clock.js';

export type CounterName = 'repricer' | 'offer' | 'product' | 'connector' | 'priceChange' | 'import' | 'webhook';

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

/**
 * Reserves ids like `reserveIds`, together with a time that is later than the time of every
 * earlier reservation of this counter: records numbered from it are in time order too, so a
 * list sorted by id is also sorted by creation time.
 */
export const reserveTimedIds = async (name: CounterName, count: number, now = clockNow()): Promise<{ first: number; at: string }> => {
  let at = now;
  return retrying(`Reserving ${name} ids`, async () => {
    try {
      const result = await documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: counterKey(name),
          UpdateExpression: 'ADD #value :count SET #at = :at',
          ConditionExpression: 'attribute_not_exists(#at) OR #at < :at',
          ExpressionAttributeNames: { '#value': 'value', '#at': 'at' },
          ExpressionAttributeValues: { ':count': count, ':at': at },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      const last = Number(result.Attributes?.value);
      if (!Number.isSafeInteger(last)) throw new Error(`Counter ${name} returned no value`);
      return { first: last - count + 1, at: new Date(at).toISOString() };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Another reservation took a later time (a clock ahead of ours): go one millisecond past it.
      const current = await documentClient.send(new GetCommand({ TableName: tableName(), Key: counterKey(name), ConsistentRead: true }));
      at = Math.max(at, Number(current.Item?.at ?? 0)) + 1;
      return AGAIN;
    }
  });
};
