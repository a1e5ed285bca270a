import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { TTL_ATTRIBUTE } from '../../config/table-schema.js';
import type { MarketplaceEvent } from '../../marketplace/port.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { marketplaceEventKey } from '../table/keys.js';
import { isConditionFailure } from '../table/conditions.js';
import { now as clockNow } from '../../config/clock.js';

/**
 * The marketplace events a connection received, one item per delivery id, under the tenant.
 * The item is what makes a repeated delivery a repeat (a conditional put), and its arrival on
 * the table's stream is what brings the connection's next look forward (the forwarder's
 * marketSync route). It holds what the event names (type, offer, batch), never what it says
 * changed: the marketplace's word is not written to offers, the next read is.
 */
export const MARKETPLACE_EVENT_RETENTION_SECONDS = 7 * 24 * 3600;

export const storedMarketplaceEvent = z.object({
  entity: z.literal('marketplaceEvent'),
  uid: z.string().min(1),
  /** The connection's connector: where the price sender reads a batch an event names. */
  connector: z.string().min(1).optional(),
  deliveryId: z.string().min(1),
  eventType: z.enum(['offer_updated', 'offer_created', 'batch_completed', 'other']),
  offerId: z.string().min(1).optional(),
  batchId: z.string().min(1).optional(),
  receivedAt: z.string(),
});
export type StoredMarketplaceEvent = z.infer<typeof storedMarketplaceEvent>;

export type RecordEventResult = 'recorded' | 'repeat';

/** Records a verified event once per delivery id: `repeat` (and nothing written) when its delivery was seen before. */
export const recordMarketplaceEvent = async (
  clientId: string,
  connection: { readonly uid: string; readonly connector: string },
  event: MarketplaceEvent,
  now = new Date(clockNow()),
): Promise<RecordEventResult> => {
  const connectionUid = connection.uid;
  const item: StoredMarketplaceEvent = {
    entity: 'marketplaceEvent',
    uid: connectionUid,
    connector: connection.connector,
    deliveryId: event.deliveryId,
    eventType: event.type,
    ...(event.offerId === undefined ? {} : { offerId: event.offerId }),
    ...(event.batchId === undefined ? {} : { batchId: event.batchId }),
    receivedAt: now.toISOString(),
  };
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...marketplaceEventKey(clientId, connectionUid, event.deliveryId),
          ...item,
          [TTL_ATTRIBUTE]: Math.floor(now.getTime() / 1000) + MARKETPLACE_EVENT_RETENTION_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return 'recorded';
  } catch (error) {
    if (isConditionFailure(error)) return 'repeat';
    throw error;
  }
};
