import { createHash } from 'node:crypto';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { streamChangeOf } from '../shared/data/change-records.js';
import type { ListChangesMessage, RepricingMessage } from '../shared/events/list-changes.js';
import { logger } from '../shared/logger.js';
import type { QueueMessage, QueueSender } from '../shared/queue/sender.js';

/**
 * The table's change stream, forwarded in one message per tenant and batch to each of two
 * FIFO queues, in that tenant's message group: to the list maintainer (what may need listing
 * or counting) and to the repricing evaluator (which products may need a price decision). Each
 * tenant's work is done by one handler at a time while tenants proceed in parallel. A tenant
 * whose messages cannot be sent is reported from its first record; Lambda retries from there
 * (a message sent twice is harmless: both handlers read the current state themselves).
 */
const MAX_ITEMS_PER_MESSAGE = 500;

export interface ForwardTargets {
  readonly lists: QueueSender;
  readonly repricing: QueueSender;
}

interface TenantWork {
  readonly lists: ListChangesMessage;
  readonly evaluate: Set<string>;
  readonly first: string;
  readonly events: string[];
}

const chunk = <T>(values: readonly T[]): T[][] =>
  values.length === 0 ? [] : Array.from({ length: Math.ceil(values.length / MAX_ITEMS_PER_MESSAGE) }, (_, i) => values.slice(i * MAX_ITEMS_PER_MESSAGE, (i + 1) * MAX_ITEMS_PER_MESSAGE));

/** A rebuild step goes alone: each message is one pass of the maintainer, counted once per node. */
const listMessages = (work: ListChangesMessage): ListChangesMessage[] => {
  const empty = { clientId: work.clientId, offers: [], products: [], priceChanges: [], rebuilds: [] };
  return [
    ...work.rebuilds.map((requestId) => ({ ...empty, rebuilds: [requestId] })),
    ...chunk(work.offers).map((offers) => ({ ...empty, offers })),
    ...chunk(work.products).map((products) => ({ ...empty, products })),
    ...chunk(work.priceChanges).map((priceChanges) => ({ ...empty, priceChanges })),
  ];
};

const messagesOf = (groupId: string, digest: string, bodies: readonly unknown[]): QueueMessage[] =>
  bodies.map((body, i) => ({ groupId, deduplicationId: `${digest.slice(0, 60)}-${i}`, body: JSON.stringify(body) }));

export const forwardChanges =
  (targets: ForwardTargets) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const byTenant = new Map<string, TenantWork>();
    for (const record of event.Records) {
      const change = streamChangeOf(record.dynamodb?.Keys, record.dynamodb?.OldImage, record.dynamodb?.NewImage);
      const sequence = record.dynamodb?.SequenceNumber;
      if (!change || !sequence) continue;
      const work = byTenant.get(change.clientId) ?? {
        lists: { clientId: change.clientId, offers: [], products: [], priceChanges: [], rebuilds: [] },
        evaluate: new Set<string>(),
        first: sequence,
        events: [],
      };
      switch (change.kind) {
        case 'offer':
          work.lists.offers.push({ ...change.hint, cells: [...change.hint.cells] });
          for (const code of change.products) work.evaluate.add(code);
          break;
        case 'product':
          work.lists.products.push(change.code);
          break;
        case 'slot':
          work.evaluate.add(change.code);
          break;
        case 'priceChange':
          work.lists.priceChanges.push(change.hint);
          break;
        case 'rebuild':
          work.lists.rebuilds.push(change.requestId);
          break;
      }
      work.events.push(record.eventID ?? sequence);
      byTenant.set(change.clientId, work);
    }

    const failures: string[] = [];
    await Promise.all(
      [...byTenant].map(async ([clientId, work]) => {
        const digest = createHash('sha256').update(work.events.join(',')).digest('hex');
        const evaluations: RepricingMessage[] = chunk([...work.evaluate]).map((products) => ({ clientId, products }));
        try {
          await Promise.all([
            targets.lists.send(messagesOf(clientId, digest, listMessages(work.lists))),
            targets.repricing.send(messagesOf(clientId, digest, evaluations)),
          ]);
        } catch (error) {
          logger.error('Could not forward changes', { clientId, error: error as Error });
          failures.push(work.first);
        }
      }),
    );
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  };
