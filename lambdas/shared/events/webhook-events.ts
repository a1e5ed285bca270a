import * as z from 'zod';
import type { Connection, ConnectionStatus } from '../domain/connections.js';
import { WEBHOOK_EVENT_TYPES, type ConnectionStatusChangedData, type ImportCompletedData } from '../domain/webhooks.js';

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
