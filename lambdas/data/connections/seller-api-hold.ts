import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../table/dynamo.js';
import { connectionKey } from '../table/keys.js';
import { isConditionFailure } from '../table/conditions.js';

/**
 * A connection's one hold on the marketplace's seller API: after a 429 whose Retry-After is
 * longer than a caller waits, no worker of the connection calls the seller API until it has
 * passed. The sync worker (own-offer syncs, an event's offer read) and the price sender (pushes,
 * batch-status reads, reads of offers in doubt) share it: the seller API limits the key, not
 * the worker.
 *
 * Stored on the connection item as `sendHoldUntil`, the name it had when only the sender kept
 * it; the connection's PUT writes the item anew, so a new key starts without a hold.
 */
export const sellerApiHeldUntil = (stored: { readonly sendHoldUntil?: string | undefined }, nowMs: number): string | undefined =>
  stored.sendHoldUntil !== undefined && Date.parse(stored.sendHoldUntil) > nowMs ? stored.sendHoldUntil : undefined;

/**
 * Holds the connection's seller-API calls until `until`. Only ever lengthens a hold: two workers
 * that meet 429s of different lengths leave the longer one (ISO times compare as text).
 */
export const holdSellerApi = async (clientId: string, connector: string, until: string): Promise<void> => {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: connectionKey(clientId, connector),
        UpdateExpression: 'SET sendHoldUntil = :until',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(sendHoldUntil) OR sendHoldUntil < :until)',
        ExpressionAttributeValues: { ':until': until },
      }),
    );
  } catch (error) {
    // The connection is gone, or a longer hold is already in force.
    if (!isConditionFailure(error)) throw error;
  }
};
