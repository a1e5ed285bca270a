import { createHash } from 'node:crypto';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { streamChangeOf } from '../../data/stream/records.js';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { createMetrics, REFUSED_QUEUE_MESSAGES_METRIC } from '../../http/observability.js';
import { logger } from '../../observability/logger.js';
import type { QueueSender, RefusedMessage } from '../../queue/sender.js';
import { CHANGE_ROUTES, type RouteStarter, type RouteWork } from './routes.js';

/**
 * The table's change stream, forwarded: for each route (routes.ts), one message per tenant and
 * batch to the route's FIFO queue, in that tenant's message group, so each tenant's work is
 * done by one consumer at a time while tenants proceed in parallel. A tenant whose messages
 * cannot be sent is reported from its first record; Lambda retries from there (a message sent
 * twice is harmless: the consumers read the current state themselves). A message SQS will
 * never take (its characters or size) is no reason to hold the rest: it is reported (logged
 * with its tenant, queue and key, and counted) and the other messages go on.
 */
export type RefusalReporter = (refusal: { readonly clientId: string; readonly queue: string; readonly refused: RefusedMessage }) => void;

const metrics = createMetrics();

export const logRefusal: RefusalReporter = ({ clientId, queue, refused }) => {
  logger.error('A queue message was refused and dropped', {
    clientId,
    queue,
    groupId: refused.message.groupId,
    deduplicationId: refused.message.deduplicationId,
    reason: refused.reason,
    bytes: Buffer.byteLength(refused.message.body, 'utf8'),
    refusedMessages: 1,
  });
  metrics.addMetric(REFUSED_QUEUE_MESSAGES_METRIC, MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
};

export const forwardChanges =
  (senders: Readonly<Record<string, QueueSender>>, routes: readonly RouteStarter[] = CHANGE_ROUTES, reportRefusal: RefusalReporter = logRefusal) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const byTenant = new Map<string, { work: RouteWork[]; first: string; events: string[] }>();
    for (const record of event.Records) {
      const seconds = record.dynamodb?.ApproximateCreationDateTime;
      const changedAt = seconds === undefined ? undefined : new Date(seconds * 1000).toISOString();
      const change = streamChangeOf(record.dynamodb?.Keys, record.dynamodb?.OldImage, record.dynamodb?.NewImage, changedAt);
      const sequence = record.dynamodb?.SequenceNumber;
      if (!change || !sequence) continue;
      const tenant = byTenant.get(change.clientId) ?? { work: routes.map((route) => route.begin(change.clientId)), first: sequence, events: [] };
      for (const work of tenant.work) work.add(change);
      tenant.events.push(record.eventID ?? sequence);
      byTenant.set(change.clientId, tenant);
    }

    const failures: string[] = [];
    await Promise.all(
      [...byTenant].map(async ([clientId, { work, first, events }]) => {
        const digest = createHash('sha256').update(events.join(',')).digest('hex').slice(0, 60);
        try {
          await Promise.all(
            // Async, so a missing sender rejects like a failed send instead of leaving the other sends unawaited.
            work.map(async (route) => {
              const messages = route.messages();
              if (messages.length === 0) return;
              const sender = senders[route.queue];
              if (!sender) throw new Error(`No sender for queue ${route.queue}`);
              const refused = await sender.send(
                messages.map(({ groupId, body }, n) => ({ groupId: groupId ?? clientId, deduplicationId: `${digest}-${n}`, body: JSON.stringify(body) })),
              );
              for (const message of refused ?? []) reportRefusal({ clientId, queue: route.queue, refused: message });
            }),
          );
        } catch (error) {
          logger.error('Could not forward changes', { clientId, error: error as Error });
          failures.push(first);
        }
      }),
    );
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  };
