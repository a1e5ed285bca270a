import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { DEFAULT_SAFETY, type Connection } from '../../../lambdas/domain/connections.js';
import { connectionKey, marketplaceEventKey } from '../../../lambdas/data/table/keys.js';
import type { StoredMarketplaceEvent } from '../../../lambdas/data/market/marketplace-events.js';

/** Stream images of connections and marketplace events, as the table's stream carries them. */
export type Image = Record<string, AttributeValue>;
export const image = (item: Record<string, unknown>): Image => marshall(item, { removeUndefinedValues: true }) as Image;

export const CONNECTION_UID = '0b6c3f0e-8d7a-4c1b-9e2f-3a4b5c6d7e8f';

export const connection = (overrides: Partial<Connection> = {}): Connection => ({
  connector: 'takealot',
  seller_id: '1000001',
  seller_id_source: 'client',
  entries_skipped: 0,
  uid: CONNECTION_UID,
  key_last4: 'ZZZZ',
  safety: DEFAULT_SAFETY,
  webhook_secret_set: true,
  mode: 'live',
  status: 'connected',
  last_sync_at: null,
  last_error: null,
  sync_requested_at: null,
  offers_synced: 0,
  prices_sent: 0,
  created_at: '2026-11-20T07:00:00.000Z',
  updated_at: '2026-11-20T07:00:00.000Z',
  ...overrides,
});

const SEALED = { v: 1, key: 'AA==', iv: 'AA==', tag: 'AA==', data: 'AA==' };
export const connectionItem = (clientId: string, record: Connection) => ({
  ...connectionKey(clientId, record.connector),
  entity: 'connection',
  record,
  sealedKey: SEALED,
  sealedWebhookSecret: SEALED,
});

export const marketplaceEvent = (overrides: Partial<StoredMarketplaceEvent> = {}): StoredMarketplaceEvent => ({
  entity: 'marketplaceEvent',
  uid: CONNECTION_UID,
  deliveryId: '5d1f0b2a-7c3e-4f9a-8b6d-2e4c6a8b0d1f',
  eventType: 'offer_updated',
  offerId: '123456',
  receivedAt: '2026-11-22T10:15:30.123Z',
  ...overrides,
});
export const marketplaceEventItem = (clientId: string, event: StoredMarketplaceEvent) => ({
  ...marketplaceEventKey(clientId, event.uid, event.deliveryId),
  ...event,
  expiresAt: 1_780_000_000,
});

let sequence = 0;
/** One stream record of an item: INSERT (new image only), MODIFY (both) or REMOVE (old only). */
export const streamRecord = (
  item: { pk: string; sk: string } & Record<string, unknown>,
  before: ({ pk: string; sk: string } & Record<string, unknown>) | undefined,
): DynamoDBRecord => {
  const n = String(++sequence).padStart(6, '0');
  return {
    eventID: `event-${n}`,
    eventName: before ? 'MODIFY' : 'INSERT',
    dynamodb: { Keys: image({ pk: item.pk, sk: item.sk }), NewImage: image(item), ...(before ? { OldImage: image(before) } : {}), SequenceNumber: n },
  };
};

/** The stream record of an item's removal (a delete or a TTL expiry): its old image only. */
export const removedRecord = (item: { pk: string; sk: string } & Record<string, unknown>): DynamoDBRecord => {
  const n = String(++sequence).padStart(6, '0');
  return { eventID: `event-${n}`, eventName: 'REMOVE', dynamodb: { Keys: image({ pk: item.pk, sk: item.sk }), OldImage: image(item), SequenceNumber: n } };
};
