import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { STORED_HOLD_MAX_MS } from '../../config/marketplace-holds.js';
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
 * it; a PUT with a new key keeps it (the hold is the marketplace's word on the seller, and ends
 * within the cap anyway: config/marketplace-holds.ts).
 */
export const sellerApiHeldUntil = (stored: { readonly sendHoldUntil?: string | undefined }, nowMs: number): string | undefined => {
  if (stored.sendHoldUntil === undefined) return undefined;
  const until = Date.parse(stored.sendHoldUntil);
  // A hold ending beyond the cap was not set under it: not obeyed, the next call is a fresh try.
  return until > nowMs && until <= nowMs + STORED_HOLD_MAX_MS ? stored.sendHoldUntil : undefined;
};

/**
 * Holds the connection's seller-API calls until `until` (a rate limit's wait, already within the
 * cap: marketplace/port.ts). Only ever lengthens a hold: two workers that meet 429s of different
 * lengths leave the longer one (ISO times compare as text). A stored hold ending more than the
 * cap after `until` is one set without the cap (it is not obeyed either): replaced.
 */
export const holdSellerApi = async (clientId: string, connector: string, until: string): Promise<void> => {
  const beyondCap = new Date(Date.parse(until) + STORED_HOLD_MAX_MS).toISOString();
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: connectionKey(clientId, connector),
        UpdateExpression: 'SET sendHoldUntil = :until',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(sendHoldUntil) OR sendHoldUntil < :until OR sendHoldUntil > :beyondCap)',
        ExpressionAttributeValues: { ':until': until, ':beyondCap': beyondCap },
      }),
    );
  } catch (error) {
    // The connection is gone, or a longer hold is already in force.
    if (!isConditionFailure(error)) throw error;
  }
};
