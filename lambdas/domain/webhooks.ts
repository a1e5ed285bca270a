import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import type { ConnectionStatus } from './connections.js';
import { timestamp } from './records.js';
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
 * `IMPORT_COMPLETED` carries the import record (docs/imports.md); declared here so both
 * event types share one envelope. The forwarder announces it when a job's status ends.
 */
export interface ImportCompletedData {
  readonly id: number;
  readonly uid: string;
  readonly import_type: 'products' | 'offers' | 'repricers';
  readonly status: 'completed' | 'failed';
  readonly trigger_type: 'public_api' | 'cli';
  readonly total: number;
  readonly processed: number;
  readonly created: number;
  readonly updated: number;
  readonly skipped: number;
  readonly invalid: number;
  readonly start_time: string | null;
  readonly end_time: string | null;
}

/**
 * `CONNECTION_STATUS_CHANGED` (docs/design.md, "The marketplace loop"): a connection's `status` moved, e.g. to
 * `unauthorized` when the marketplace refused its key, or back to `connected` after a PUT.
 * `changed_at` is the connection's `updated_at` as the change wrote it.
 */
export interface ConnectionStatusChangedData {
  readonly connector: string;
  readonly uid: string;
  readonly status: ConnectionStatus;
  readonly previous_status: ConnectionStatus;
  readonly last_error: string | null;
  readonly changed_at: string;
}

/**
 * `BUYBOX_WON` / `BUYBOX_LOST`: the client's own offer started or stopped winning the buy box
 * (its `winning` flipped). `id` is the API's offer id (`GET /v1/offers/{id}`), `offer_id` the
 * marketplace's; `changed_at` is the offer's `updated_at` as the change wrote it.
 */
export interface BuyboxChangedData {
  readonly id: number;
  readonly offer_id: string;
  readonly product_code: string;
  readonly connector: string;
  readonly offer_price: number;
  readonly winning_price: number;
  readonly total_competitors: number;
  readonly changed_at: string;
}

/**
 * `PRICE_WAR_DETECTED`: a repricer's price-war guard found the own offer and one rival
 * undercutting each other more than its setting allows within an hour, and holds the offer's
 * price until `hold_until` (docs/repricing.md, "Price-war guard"). Once per detected war.
 */
export interface PriceWarDetectedData {
  readonly repricer_id: number;
  readonly product_code: string;
  readonly connector: string;
  /** The marketplace id of the client's offer held. */
  readonly offer_id: string;
  readonly rival_offer_id: string;
  readonly rival_seller_id: string;
  /** The undercuts between the two counted within the hour when the war was detected. */
  readonly undercuts: number;
  readonly reason: 'price_war_hold';
  readonly detected_at: string;
  readonly hold_until: string;
}

/** The body every delivery POSTs, as the vendor's webhooks. */
export interface WebhookEvent<D = unknown> {
  readonly event_type: WebhookEventType;
  readonly event_timestamp: string;
  readonly event_data: D;
}

export const SIGNATURE_HEADER = 'Webhook-Signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the time is signed with the body, so a replay is stale. */
export const signatureHeader = (secret: string, body: string, unixSeconds: number): string =>
  `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex')}`;

/** A receiver's check (docs/webhooks.md has the same for receivers to copy). */
export const verifySignature = (secret: string, body: string, header: string, nowSeconds: number, toleranceSeconds = 300): boolean => {
  const parts = Object.fromEntries(header.split(',').map((item) => item.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds || typeof parts.v1 !== 'string') return false;
  const expected = Buffer.from(signatureHeader(secret, body, t).split('v1=')[1] ?? '', 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
};

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
