import { createHmac } from 'node:crypto';
import * as z from 'zod';
import { CONNECTION_STATUSES } from './connections.js';
import { importJobRecord } from './import-jobs.js';
import { priceChangeRecord, timestamp } from './records.js';
import { text } from './text.js';

/**
 * Webhooks (docs/webhooks.md): what a client subscribes to, what a
 * delivery carries and how it is signed, and when a failed delivery is tried again.
 */
export const WEBHOOK_EVENT_TYPES = [
  'REPRICER_PRICE_CHANGED',
  'IMPORT_COMPLETED',
  'CONNECTION_STATUS_CHANGED',
  'PRICE_CHANGE_APPLIED',
  'PRICE_CHANGE_FAILED',
  'BUYBOX_WON',
  'BUYBOX_LOST',
  'PRICE_WAR_DETECTED',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** At most this many webhooks per client: each event is POSTed once per subscribed webhook. */
export const MAX_WEBHOOKS_PER_CLIENT = 5;
export const MAX_URL_LENGTH = 2048;

export const createWebhookBody = z.strictObject({
  url: text().min(1).max(MAX_URL_LENGTH),
  event_types: z
    .array(z.enum(WEBHOOK_EVENT_TYPES))
    .min(1)
    .max(WEBHOOK_EVENT_TYPES.length)
    .refine((types) => new Set(types).size === types.length, 'must not repeat an event type'),
});
export type CreateWebhookBody = z.infer<typeof createWebhookBody>;

export const webhookRecord = z.strictObject({
  id: z.int().positive(),
  uid: z.uuid(),
  url: z.string(),
  event_types: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  created_at: timestamp,
});
export type Webhook = z.infer<typeof webhookRecord>;
/** The creation's answer: the only one that shows the secret. */
export const createdWebhookRecord = webhookRecord.extend({ secret: z.string() });
export const webhooksList = z.strictObject({ webhooks: z.array(webhookRecord) });

export const DELIVERY_STATUSES = ['pending', 'delivered', 'dead_lettered'] as const;
export const deliveryRecord = z.strictObject({
  /** Deterministic: the same event to the same webhook is one delivery, however often it is replayed. */
  id: z.string(),
  event_type: z.enum(WEBHOOK_EVENT_TYPES),
  event_timestamp: timestamp,
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int().min(0),
  last_status_code: z.int().nullable(),
  last_error: z.string().nullable(),
  last_attempt_at: timestamp.nullable(),
  next_attempt_at: timestamp.nullable(),
  delivered_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type Delivery = z.infer<typeof deliveryRecord>;
export const deliveriesPage = z.strictObject({ meta: z.strictObject({ limit: z.int().min(1).max(100) }), deliveries: z.array(deliveryRecord) });

/**
 * `IMPORT_COMPLETED` carries the import record (docs/imports.md) of a job that ended. The
 * forwarder announces it when a job's status ends.
 */
export const importCompletedData = importJobRecord.extend({ status: z.enum(['completed', 'failed']) });
export type ImportCompletedData = z.infer<typeof importCompletedData>;

/**
 * `CONNECTION_STATUS_CHANGED` (docs/design.md, "The marketplace loop"): a connection's `status` moved, e.g. to
 * `unauthorized` when the marketplace refused its key, or back to `connected` after a PUT.
 * `changed_at` is the connection's `updated_at` as the change wrote it.
 */
export const connectionStatusChangedData = z.strictObject({
  connector: z.string(),
  uid: z.uuid(),
  status: z.enum(CONNECTION_STATUSES),
  previous_status: z.enum(CONNECTION_STATUSES),
  last_error: z.string().nullable(),
  changed_at: timestamp,
});
export type ConnectionStatusChangedData = z.infer<typeof connectionStatusChangedData>;

/**
 * `BUYBOX_WON` / `BUYBOX_LOST`: the client's own offer started or stopped winning the buy box
 * (its `winning` flipped). `id` is the API's offer id (`GET /v1/offers/{id}`), `offer_id` the
 * marketplace's; `changed_at` is the offer's `updated_at` as the change wrote it.
 */
export const buyboxChangedData = z.strictObject({
  id: z.int().positive(),
  offer_id: z.string(),
  product_code: z.string(),
  connector: z.string(),
  offer_price: z.number(),
  winning_price: z.number(),
  total_competitors: z.int().min(0),
  changed_at: timestamp,
});
export type BuyboxChangedData = z.infer<typeof buyboxChangedData>;

/**
 * `PRICE_WAR_DETECTED`: a repricer's price-war guard found the own offer and one rival
 * undercutting each other more than its setting allows within an hour, and holds the offer's
 * price until `hold_until` (docs/repricing.md, "Price-war guard"). Once per detected war.
 */
export const priceWarDetectedData = z.strictObject({
  repricer_id: z.int().positive(),
  product_code: z.string(),
  connector: z.string(),
  /** The marketplace id of the client's offer held. */
  offer_id: z.string(),
  rival_offer_id: z.string(),
  rival_seller_id: z.string(),
  /** The undercuts between the two counted within the hour when the war was detected. */
  undercuts: z.int().min(0),
  reason: z.literal('price_war_hold'),
  detected_at: timestamp,
  hold_until: timestamp,
});
export type PriceWarDetectedData = z.infer<typeof priceWarDetectedData>;

/** An event's id: unique per tenant and event type (lambdas/events/webhook-events.ts). */
export const MAX_EVENT_ID_LENGTH = 200;

/**
 * The body a delivery POSTs: the event's id (also its `webhook-id` header, the same on every
 * attempt), type and time, and its data. One schema per event type, from which the OpenAPI
 * document's `webhooks` are generated (tools/openapi/webhooks.ts).
 */
const eventBody = <T extends WebhookEventType, D extends z.ZodType>(eventType: T, data: D) =>
  z.strictObject({ event_id: z.string().min(1).max(MAX_EVENT_ID_LENGTH), event_type: z.literal(eventType), event_timestamp: timestamp, event_data: data });

export const WEBHOOK_EVENT_BODIES = {
  REPRICER_PRICE_CHANGED: eventBody('REPRICER_PRICE_CHANGED', priceChangeRecord),
  IMPORT_COMPLETED: eventBody('IMPORT_COMPLETED', importCompletedData),
  CONNECTION_STATUS_CHANGED: eventBody('CONNECTION_STATUS_CHANGED', connectionStatusChangedData),
  PRICE_CHANGE_APPLIED: eventBody('PRICE_CHANGE_APPLIED', priceChangeRecord),
  PRICE_CHANGE_FAILED: eventBody('PRICE_CHANGE_FAILED', priceChangeRecord),
  BUYBOX_WON: eventBody('BUYBOX_WON', buyboxChangedData),
  BUYBOX_LOST: eventBody('BUYBOX_LOST', buyboxChangedData),
  PRICE_WAR_DETECTED: eventBody('PRICE_WAR_DETECTED', priceWarDetectedData),
} as const satisfies { readonly [T in WebhookEventType]: z.ZodType<{ event_type: T }> };

export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = z.infer<(typeof WEBHOOK_EVENT_BODIES)[T]>;

/** The body's exact text, stored with the delivery so that every attempt sends the same bytes. */
export const webhookEventBody = (event: { eventId: string; eventType: WebhookEventType; eventTimestamp: string; data: unknown }): string =>
  JSON.stringify({ event_id: event.eventId, event_type: event.eventType, event_timestamp: event.eventTimestamp, event_data: event.data });

/**
 * The headers of the Standard Webhooks scheme (standardwebhooks.com): the event's id, the
 * attempt's time in Unix seconds, and `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
 * The time is signed with the id and body, so a captured delivery replayed later is stale.
 */
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

/**
 * The HMAC key of a secret `whsec_<base64>`: the bytes after the prefix, base64-decoded, as the
 * scheme defines it, so its published libraries verify these deliveries too. Secrets are
 * `whsec_` and 64 hex digits, which decode as base64 to a 48-byte key.
 */
const signingKey = (secret: string): Buffer => Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');

export const webhookSignature = (secret: string, id: string, unixSeconds: number, body: string): string =>
  `v1,${createHmac('sha256', signingKey(secret)).update(`${id}.${unixSeconds}.${body}`, 'utf8').digest('base64')}`;

/** What one attempt sends beside the body. */
export const signedHeaders = (secret: string, id: string, unixSeconds: number, body: string): Record<string, string> => ({
  [WEBHOOK_ID_HEADER]: id,
  [WEBHOOK_TIMESTAMP_HEADER]: String(unixSeconds),
  [WEBHOOK_SIGNATURE_HEADER]: webhookSignature(secret, id, unixSeconds, body),
});

/**
 * When failed deliveries are tried again: exponential from `baseDelayMs`, capped at
 * `maxDelayMs`, until `windowMs` after the first attempt; after that the delivery is dead-lettered.
 */
export interface RetrySchedule {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly windowMs: number;
}

/**
 * On AWS: 30 s, 1 min, 2 min, ... up to 15 min between attempts (the largest delay an SQS
 * message's visibility change needs here), for 24 hours: about 100 attempts.
 */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { baseDelayMs: 30_000, maxDelayMs: 15 * 60_000, windowMs: 24 * 3_600_000 };

/** The wait after the `attempts`-th failed attempt (1-based), or undefined when the window is over. */
export const nextRetryDelayMs = (schedule: RetrySchedule, attempts: number, firstAttemptAt: number, now: number): number | undefined => {
  const delay = Math.min(schedule.maxDelayMs, schedule.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return now + delay - firstAttemptAt > schedule.windowMs ? undefined : delay;
};

/** Per delivery attempt, including connecting: past it the attempt failed and is retried. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How long creating a webhook waits for its host name to resolve. */
export const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * What a failed attempt shows the tenant in `last_error`: a fixed set of plain outcomes, never a
 * socket's error code (ECONNREFUSED against a timeout would tell a tenant which ports of a host
 * are open). A non-2xx answer shows its status in `last_status_code`.
 */
export const DELIVERY_ERRORS = {
  timedOut: 'no response in time',
  connectionFailed: 'could not connect',
  notResolved: 'the host name did not resolve',
  refusedAddress: 'the URL points at an address webhooks may not reach',
  secretUnavailable: 'the signing secret could not be read',
  answered: (statusCode: number) => `answered ${statusCode}`,
} as const;
