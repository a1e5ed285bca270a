import * as z from 'zod';
import { WEBHOOK_EVENT_TYPES, type ImportCompletedData } from '../domain/webhooks.js';

/**
 * A message to the webhook worker: one event of one tenant. Its message group is the tenant
 * and the repricer (or the import), so one repricer's events are delivered in order while
 * other repricers' go on.
 */
export const webhookEventMessage = z.object({
  clientId: z.string().min(1),
  /** Unique per event type and tenant: with the webhook's id, the delivery's id. */
  eventId: z.string().min(1).max(200),
  eventType: z.enum(WEBHOOK_EVENT_TYPES),
  eventTimestamp: z.iso.datetime({ precision: 3 }),
  data: z.unknown(),
});
export type WebhookEventMessage = z.infer<typeof webhookEventMessage>;

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
