import * as z from 'zod';
import type { Connection, ConnectionStatus } from '../domain/connections.js';
import type { OfferFields, PriceChange } from '../domain/records.js';
import {
  MAX_EVENT_ID_LENGTH,
  WEBHOOK_EVENT_TYPES,
  type BuyboxChangedData,
  type ConnectionStatusChangedData,
  type ImportCompletedData,
  type PriceWarDetectedData,
} from '../domain/webhooks.js';

/**
 * A message to the webhook worker: one event of one tenant. Its message group is the tenant
 * and what the event is about (the repricer, import, connection or offer), so one subject's
 * events are delivered in order while the others go on.
 */
export const webhookEventMessage = z.object({
  clientId: z.string().min(1),
  /** Unique per event type and tenant: the body's `event_id` and `webhook-id`; with the webhook's id, the delivery's id. */
  eventId: z.string().min(1).max(MAX_EVENT_ID_LENGTH),
  eventType: z.enum(WEBHOOK_EVENT_TYPES),
  eventTimestamp: z.iso.datetime({ precision: 3 }),
  data: z.unknown(),
});
export type WebhookEventMessage = z.infer<typeof webhookEventMessage>;

/** The message announcing a price change just decided (created): one per record, whatever the number of times its creation is read. */
export const priceChangeCreatedMessage = (clientId: string, record: PriceChange): WebhookEventMessage => ({
  clientId,
  eventId: `REPRICER_PRICE_CHANGED-${record.id}`,
  eventType: 'REPRICER_PRICE_CHANGED',
  eventTimestamp: record.created_at,
  data: record,
});

/**
 * The message announcing a finished import job (the forwarder's webhooks route): one
 * delivery per job and webhook, whatever the number of times the job's end is reported.
 */
export const importCompletedMessage = (clientId: string, record: ImportCompletedData, endedAt: string): WebhookEventMessage => ({
  clientId,
  eventId: `IMPORT_COMPLETED-${record.id}`,
  eventType: 'IMPORT_COMPLETED',
  eventTimestamp: endedAt,
  data: record,
});

/** Its message group: one job's events in order, other jobs and repricers in parallel. */
export const importCompletedGroup = (clientId: string, importId: number): string => `${clientId}#I${importId}`;

/**
 * The message announcing that a connection's status moved. Its id names the connection and the
 * write that moved it (`updated_at`) and the status it moved to, so the same change read twice
 * from the stream is one delivery, and two changes are two.
 */
export const connectionStatusChangedMessage = (clientId: string, record: Connection, previous: ConnectionStatus): WebhookEventMessage => {
  const data: ConnectionStatusChangedData = {
    connector: record.connector,
    uid: record.uid,
    status: record.status,
    previous_status: previous,
    last_error: record.last_error,
    changed_at: record.updated_at,
  };
  return {
    clientId,
    eventId: `CONNECTION_STATUS_CHANGED-${record.uid}-${record.updated_at}-${record.status}`,
    eventType: 'CONNECTION_STATUS_CHANGED',
    eventTimestamp: record.updated_at,
    data,
  };
};

/** Its message group: one connection's changes in order, everything else in parallel. */
export const connectionStatusGroup = (clientId: string, connectionUid: string): string => `${clientId}#C${connectionUid}`;

/**
 * The message announcing that a price change reached `applied` or `failed`, with its record.
 * Its id names the price change and the write that moved it (`updated_at`): the same move read
 * twice from the stream is one delivery, while a later move to the same status would be another.
 */
export const priceChangeSettledMessage = (clientId: string, record: PriceChange & { status: 'applied' | 'failed' }): WebhookEventMessage => {
  const eventType = record.status === 'applied' ? 'PRICE_CHANGE_APPLIED' : 'PRICE_CHANGE_FAILED';
  return { clientId, eventId: `${eventType}-${record.id}-${record.updated_at}`, eventType, eventTimestamp: record.updated_at, data: record };
};

/**
 * The group of every event about a price change (REPRICER_PRICE_CHANGED and its outcome): the
 * tenant and the repricer, so a change's outcome never overtakes its announcement.
 */
export const priceChangeGroup = (clientId: string, repricerId: number): string => `${clientId}#R${repricerId}`;

/** What a buy-box event is made of: the stored own offer as the change wrote it. */
export interface BuyboxOffer {
  readonly id: number;
  readonly product_code: string;
  readonly connector: string;
  readonly fields: Pick<OfferFields, 'offer_id' | 'offer_price' | 'winning' | 'winning_price' | 'total_competitors'>;
  readonly updated_at: string;
}

/**
 * The message announcing that the client's own offer won or lost the buy box. Its id names the
 * offer, the write that flipped it (`updated_at`) and the direction, so the same write read
 * twice is one delivery, and every flip is one.
 */
export const buyboxChangedMessage = (clientId: string, offer: BuyboxOffer): WebhookEventMessage => {
  const eventType = offer.fields.winning ? 'BUYBOX_WON' : 'BUYBOX_LOST';
  const data: BuyboxChangedData = {
    id: offer.id,
    offer_id: offer.fields.offer_id,
    product_code: offer.product_code,
    connector: offer.connector,
    offer_price: offer.fields.offer_price,
    winning_price: offer.fields.winning_price,
    total_competitors: offer.fields.total_competitors,
    changed_at: offer.updated_at,
  };
  return { clientId, eventId: `${eventType}-${offer.id}-${offer.updated_at}`, eventType, eventTimestamp: offer.updated_at, data };
};

/** Its message group: one offer's flips in order, other offers in parallel. */
export const buyboxGroup = (clientId: string, offerId: number): string => `${clientId}#O${offerId}`;

/**
 * The message announcing a price war a repricer's guard detected. Its id names the repricer,
 * the offer and when the war was detected, so the same detection read twice from the stream is
 * one delivery, and a later war is another. Its group is the repricer's, beside its price changes.
 */
export const priceWarDetectedMessage = (clientId: string, data: PriceWarDetectedData): WebhookEventMessage => ({
  clientId,
  eventId: `PRICE_WAR_DETECTED-${data.repricer_id}-${data.offer_id}-${data.detected_at}`,
  eventType: 'PRICE_WAR_DETECTED',
  eventTimestamp: data.detected_at,
  data,
});
