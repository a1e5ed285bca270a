import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { deliveryRecord, MAX_WEBHOOKS_PER_CLIENT, webhookRecord, type Delivery, type WebhookEventType } from '../../domain/webhooks.js';
import { sealedValue, type SealedValue } from '../../crypto/envelope.js';
import { reserveIds } from '../table/counters.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { deliveryKey, deliveryPartition, WEBHOOK_SK_PREFIX, webhookCountKey, webhookKey, webhookPartition } from '../table/keys.js';
import { cancellationReasons } from '../table/transactions.js';
import { isConditionFailure } from '../table/conditions.js';
import { now as clockNow, nowIso } from '../../config/clock.js';

/**
 * Webhooks and their deliveries. The signing secret is stored sealed (KMS envelope encryption,
 * webhooks/secrets.ts) beside the webhook, in the tenant's partition: a role that can read the
 * item cannot read the secret without the key, which only the create-webhook function and the
 * webhook worker may use. No response but the creation's ever contains it.
 */
const storedWebhook = z.object({
  entity: z.literal('webhook'),
  record: webhookRecord,
  sealedSecret: sealedValue.optional(),
  /** Webhooks created before secrets were sealed hold theirs in the clear; no new item does. */
  secret: z.string().min(32).optional(),
});
export type StoredWebhook = z.infer<typeof storedWebhook>;

const storedDelivery = z.object({
  entity: z.literal('webhookDelivery'),
  record: deliveryRecord,
  /** The exact event body, so every attempt sends the same bytes. */
  body: z.string(),
  /** When the first attempt was made: the retry window counts from it. */
  firstAttemptAt: z.number().nullable(),
});
export type StoredDelivery = z.infer<typeof storedDelivery>;

/** Deliveries are kept this long (DynamoDB's TTL deletes them): long past the 24 h retry window. */
const DELIVERY_RETENTION_SECONDS = 30 * 86_400;

export type CreateWebhookResult = { readonly created: true; readonly webhook: StoredWebhook } | { readonly created: false };

/**
 * Creates a webhook and claims one of the client's five places in one transaction: the count
 * is raised only while under the bound, so concurrent creates can never exceed it.
 */
export const createWebhook = async (
  clientId: string,
  input: { url: string; event_types: WebhookEventType[]; sealedSecret: SealedValue },
  now = nowIso(),
): Promise<CreateWebhookResult> => {
  const id = await reserveIds('webhook');
  const stored: StoredWebhook = {
    entity: 'webhook',
    sealedSecret: input.sealedSecret,
    record: { id, uid: crypto.randomUUID(), url: input.url, event_types: input.event_types, created_at: now },
  };
  try {
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: webhookCountKey(clientId),
              UpdateExpression: 'ADD #n :one SET entity = :entity',
              ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
              ExpressionAttributeNames: { '#n': 'n' },
              ExpressionAttributeValues: { ':one': 1, ':max': MAX_WEBHOOKS_PER_CLIENT, ':entity': 'webhookCount' },
            },
          },
          { Put: { TableName: tableName(), Item: { ...webhookKey(clientId, id), ...stored }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return { created: false };
    throw error;
  }
  return { created: true, webhook: stored };
};

export const listWebhooks = async (clientId: string): Promise<StoredWebhook[]> => {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': webhookPartition(clientId), ':prefix': WEBHOOK_SK_PREFIX },
      // The bound keeps this one page: five webhooks are far below 1 MB.
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map((item) => storedWebhook.parse(item));
};

export const getWebhook = async (clientId: string, id: number): Promise<StoredWebhook | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: webhookKey(clientId, id), ConsistentRead: true }));
  return result.Item ? storedWebhook.parse(result.Item) : undefined;
};

/** Deletes the webhook and frees its place; false when there was none. Its deliveries expire by TTL. */
export const deleteWebhook = async (clientId: string, id: number): Promise<boolean> => {
  try {
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: tableName(), Key: webhookKey(clientId, id), ConditionExpression: 'attribute_exists(pk)' } },
          {
            Update: {
              TableName: tableName(),
              Key: webhookCountKey(clientId),
              UpdateExpression: 'ADD #n :minusOne',
              ExpressionAttributeNames: { '#n': 'n' },
              ExpressionAttributeValues: { ':minusOne': -1 },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed') return false;
    throw error;
  }
};

export interface DeliveryKey {
  readonly clientId: string;
  readonly webhookId: number;
  readonly eventId: string;
  readonly eventType: WebhookEventType;
  readonly eventTimestamp: string;
}

const keyOf = (key: DeliveryKey) => deliveryKey(key.clientId, key.webhookId, key.eventTimestamp, key.eventId);

/**
 * The delivery of one event to one webhook: created on first sight (a conditional put, so a
 * replayed event finds the one it created before), read consistently otherwise.
 */
export const openDelivery = async (key: DeliveryKey, body: string, now = new Date(clockNow())): Promise<StoredDelivery> => {
  const at = now.toISOString();
  const fresh: StoredDelivery = {
    entity: 'webhookDelivery',
    body,
    firstAttemptAt: null,
    record: {
      id: `${key.webhookId}-${key.eventId}`,
      event_type: key.eventType,
      event_timestamp: key.eventTimestamp,
      status: 'pending',
      attempts: 0,
      last_status_code: null,
      last_error: null,
      last_attempt_at: null,
      next_attempt_at: at,
      delivered_at: null,
      created_at: at,
      updated_at: at,
    },
  };
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keyOf(key), ...fresh, expiresAt: Math.floor(now.getTime() / 1000) + DELIVERY_RETENTION_SECONDS },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return fresh;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const existing = await documentClient.send(new GetCommand({ TableName: tableName(), Key: keyOf(key), ConsistentRead: true }));
  return storedDelivery.parse(existing.Item);
};

/**
 * Records an attempt's outcome, on condition that no other attempt was recorded since the
 * read (one consumer per message group makes that the rule; the condition makes it sure).
 * False when another one was.
 */
export const recordAttempt = async (key: DeliveryKey, previous: StoredDelivery, next: StoredDelivery): Promise<boolean> => {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(key),
        UpdateExpression: 'SET #record = :record, firstAttemptAt = :first',
        ConditionExpression: '#record.attempts = :attempts AND #record.#status = :pending',
        ExpressionAttributeNames: { '#record': 'record', '#status': 'status' },
        ExpressionAttributeValues: { ':record': next.record, ':first': next.firstAttemptAt, ':attempts': previous.record.attempts, ':pending': 'pending' },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** A webhook's latest deliveries, newest event first. */
export const listDeliveries = async (clientId: string, webhookId: number, limit: number): Promise<Delivery[]> => {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': deliveryPartition(clientId, webhookId) },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map((item) => storedDelivery.parse(item).record);
};
