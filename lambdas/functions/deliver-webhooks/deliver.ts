import { listWebhooks, openDelivery, recordAttempt, type DeliveryKey, type StoredDelivery, type StoredWebhook } from '../../data/webhooks/webhooks.js';
import {
  DEFAULT_RETRY_SCHEDULE,
  DELIVERY_ERRORS,
  DELIVERY_TIMEOUT_MS,
  nextRetryDelayMs,
  signedHeaders,
  webhookEventBody,
  type RetrySchedule,
} from '../../domain/webhooks.js';
import type { WebhookEventMessage } from '../../events/webhook-events.js';
import { postToDestination, resolveDestination, systemResolver, type Destination, type PostOutcome, type Resolver } from '../../webhooks/destination.js';
import { openWebhookSecret } from '../../webhooks/secrets.js';
import { now } from '../../config/clock.js';

export interface DeliveryOptions {
  readonly resolve: Resolver;
  readonly schedule: RetrySchedule;
  readonly timeoutMs: number;
  readonly now: () => number;
}

export const DEFAULT_DELIVERY_OPTIONS: DeliveryOptions = {
  resolve: systemResolver,
  schedule: DEFAULT_RETRY_SCHEDULE,
  timeoutMs: DELIVERY_TIMEOUT_MS,
  now,
};

const isSuccess = (statusCode: number | undefined) => statusCode !== undefined && statusCode >= 200 && statusCode < 300;

/** What one attempt came to: refused before sending (address, secret), or the receiver's answer. */
const sendAttempt = async (
  webhook: StoredWebhook,
  key: DeliveryKey,
  body: string,
  destination: Destination | undefined,
  startedAt: number,
  options: DeliveryOptions,
): Promise<PostOutcome> => {
  if (!destination) return { statusCode: undefined, error: DELIVERY_ERRORS.notResolved };
  if (!destination.ok) return { statusCode: undefined, error: destination.unresolved ? DELIVERY_ERRORS.notResolved : DELIVERY_ERRORS.refusedAddress };
  const signing = await openWebhookSecret({ clientId: key.clientId, webhookId: webhook.record.id, sealedSecret: webhook.sealedSecret, secret: webhook.secret });
  if (!signing.ok) return { statusCode: undefined, error: DELIVERY_ERRORS.secretUnavailable };
  const remainingMs = Math.max(1, options.timeoutMs - (options.now() - startedAt));
  // The event's id is the same on every attempt (a receiver drops a repeat by it); the time is this attempt's.
  return postToDestination(destination, body, signedHeaders(signing.secret, key.eventId, Math.floor(startedAt / 1000), body), remainingMs);
};

/**
 * One attempt, when one is due: the address checked again as it resolves now, the body POSTed
 * to that address only, signed at the time of sending (the stored body, the same bytes on
 * every attempt, with this attempt's time in `webhook-timestamp`). Returns how long to wait before the
 * next attempt, or undefined when the delivery is over (delivered or dead-lettered).
 */
const attemptDelivery = async (webhook: StoredWebhook, key: DeliveryKey, delivery: StoredDelivery, options: DeliveryOptions): Promise<number | undefined> => {
  if (delivery.record.status !== 'pending') return undefined;
  const startedAt = options.now();
  const due = delivery.record.next_attempt_at === null ? startedAt : Date.parse(delivery.record.next_attempt_at);
  if (due > startedAt) return due - startedAt;

  // The name's resolution counts against the attempt's timeout too: a resolver that never
  // answers must not hold the worker past it.
  let timer: NodeJS.Timeout | undefined;
  const destination = await Promise.race([
    resolveDestination(webhook.record.url, options.resolve, undefined, options.timeoutMs),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), options.timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
  const outcome = await sendAttempt(webhook, key, delivery.body, destination, startedAt, options);

  const finishedAt = options.now();
  const firstAttemptAt = delivery.firstAttemptAt ?? startedAt;
  const attempts = delivery.record.attempts + 1;
  const delivered = isSuccess(outcome.statusCode);
  const delay = delivered ? undefined : nextRetryDelayMs(options.schedule, attempts, firstAttemptAt, finishedAt);
  const at = new Date(finishedAt).toISOString();
  const next: StoredDelivery = {
    ...delivery,
    firstAttemptAt,
    record: {
      ...delivery.record,
      status: delivered ? 'delivered' : delay === undefined ? 'dead_lettered' : 'pending',
      attempts,
      last_status_code: outcome.statusCode ?? null,
      last_error: delivered ? null : (outcome.error ?? DELIVERY_ERRORS.answered(outcome.statusCode ?? 0)),
      last_attempt_at: at,
      next_attempt_at: delay === undefined ? null : new Date(finishedAt + delay).toISOString(),
      delivered_at: delivered ? at : null,
      updated_at: at,
    },
  };
  // Lost to another attempt (a redelivered message): that one's outcome stands; look again later.
  if (!(await recordAttempt(key, delivery, next))) return options.schedule.baseDelayMs;
  return next.record.status === 'pending' ? delay : undefined;
};

/**
 * Delivers one event to each of the tenant's webhooks subscribed to its type, in parallel.
 * Returns the wait before the earliest next attempt, or undefined when every delivery is over.
 * A delivery is keyed by (webhook, event): a replayed event finds it and sends nothing again.
 */
export const deliverEvent = async (message: WebhookEventMessage, options: DeliveryOptions = DEFAULT_DELIVERY_OPTIONS): Promise<number | undefined> => {
  const webhooks = (await listWebhooks(message.clientId)).filter((webhook) => webhook.record.event_types.includes(message.eventType));
  const body = webhookEventBody(message);
  const waits = await Promise.all(
    webhooks.map(async (webhook) => {
      const key: DeliveryKey = {
        clientId: message.clientId,
        webhookId: webhook.record.id,
        eventId: message.eventId,
        eventType: message.eventType,
        eventTimestamp: message.eventTimestamp,
      };
      const delivery = await openDelivery(key, body, new Date(options.now()));
      return attemptDelivery(webhook, key, delivery, options);
    }),
  );
  const pending = waits.filter((wait): wait is number => wait !== undefined);
  return pending.length === 0 ? undefined : Math.min(...pending);
};
