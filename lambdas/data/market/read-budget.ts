import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TTL_ATTRIBUTE } from '../../config/table-schema.js';
import { isConditionFailure } from '../table/conditions.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { readBudgetKey } from '../table/keys.js';

/**
 * A storefront host's read budget, kept in the table so every reader container spends the one
 * stage budget together (docs/market-loop.md): time is cut into windows of a second (longer
 * below one read a second), each an item counting the reads taken in it, taken by a conditional
 * add that fails once the window is full. One write per read; the items expire within a day.
 */
export const budgetWindow = (readsPerSecond: number): { readonly windowMs: number; readonly reads: number } => {
  const windowMs = readsPerSecond >= 1 ? 1000 : Math.ceil(1000 / readsPerSecond);
  return { windowMs, reads: Math.max(1, Math.floor((readsPerSecond * windowMs) / 1000)) };
};

/** Takes one read of `host`'s budget at `nowMs`: 0 when taken, else how long until the next window opens. */
export const takeRead = async (host: string, readsPerSecond: number, nowMs: number): Promise<number> => {
  const { windowMs, reads } = budgetWindow(readsPerSecond);
  const window = Math.floor(nowMs / windowMs);
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: readBudgetKey(host, window),
        UpdateExpression: 'ADD taken :one SET entity = :entity, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(taken) OR taken < :reads',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':one': 1, ':reads': reads, ':entity': 'readBudget', ':ttl': Math.ceil(nowMs / 1000) + 24 * 3600 },
      }),
    );
    return 0;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return Math.max(1, (window + 1) * windowMs - nowMs);
  }
};
