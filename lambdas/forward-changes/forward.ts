import { createHash } from 'node:crypto';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { listChangeOf } from '../shared/data/change-records.js';
import type { ListChangesMessage } from '../shared/events/list-changes.js';
import { logger } from '../shared/logger.js';
import type { QueueSender } from '../shared/queue/sender.js';

/**
 * The table's change stream, forwarded to the list maintainer: one message per tenant and
 * batch, in that tenant's message group, so each tenant's lists are maintained by one writer
 * at a time while tenants proceed in parallel. A tenant whose message cannot be sent is
 * reported from its first record; Lambda retries from there (a message sent twice is harmless).
 */
const MAX_OFFERS_PER_MESSAGE = 500;

export const forwardChanges =
  (sender: QueueSender) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const byTenant = new Map<string, { message: ListChangesMessage; first: string; events: string[] }>();
    for (const record of event.Records) {
      const change = listChangeOf(record.dynamodb?.Keys, record.dynamodb?.OldImage, record.dynamodb?.NewImage);
      const sequence = record.dynamodb?.SequenceNumber;
      if (!change || !sequence) continue;
      const entry = byTenant.get(change.clientId) ?? {
        message: { clientId: change.clientId, offers: [], products: [], rebuilds: [] },
        first: sequence,
        events: [],
      };
      if (change.kind === 'offer') entry.message.offers.push({ ...change.hint, cells: [...change.hint.cells] });
      if (change.kind === 'product') entry.message.products.push(change.code);
      if (change.kind === 'rebuild') entry.message.rebuilds.push(change.requestId);
      entry.events.push(record.eventID ?? sequence);
      byTenant.set(change.clientId, entry);
    }

    const failures: string[] = [];
    await Promise.all(
      [...byTenant.values()].map(async ({ message, first, events }) => {
        // A rebuild step goes alone: each message is one pass of the maintainer, counted once per node.
        const parts: ListChangesMessage[] = message.rebuilds.map((requestId) => ({ ...message, offers: [], products: [], rebuilds: [requestId] }));
        for (let i = 0; i < message.offers.length || (i === 0 && message.products.length > 0); i += MAX_OFFERS_PER_MESSAGE) {
          parts.push({ ...message, offers: message.offers.slice(i, i + MAX_OFFERS_PER_MESSAGE), products: i === 0 ? message.products : [], rebuilds: [] });
        }
        const digest = createHash('sha256').update(events.join(',')).digest('hex');
        try {
          await sender.send(parts.map((part, i) => ({ groupId: message.clientId, deduplicationId: `${digest.slice(0, 60)}-${i}`, body: JSON.stringify(part) })));
        } catch (error) {
          logger.error('Could not forward list changes', { clientId: message.clientId, error: error as Error });
          failures.push(first);
        }
      }),
    );
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  };
