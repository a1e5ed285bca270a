/**
 * The event-driven half of the stack, run locally with the same handlers: the table's change
 * stream drives the forwarder (like Lambda's DynamoDB event source mapping) and the forwarder's
 * messages drive the list maintainer, the repricing evaluator and the import worker (like Lambda's SQS FIFO event
 * source mapping), with the batch sizes and retry limits the stack deploys
 * (lib/constructs/change-handlers.ts).
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { forwardChanges } from '../../lambdas/forward-changes/forward.js';
import { handler as evaluateRepricers } from '../../lambdas/evaluate-repricers/handler.js';
import { handler as maintainLists } from '../../lambdas/maintain-lists/handler.js';
import type { DeliveryOptions } from '../../lambdas/deliver-webhooks/deliver.js';
import { webhookWorker } from '../../lambdas/deliver-webhooks/worker.js';
import { handler as processImports } from '../../lambdas/process-imports/handler.js';
import { batchingSender, type QueueSender } from '../../lambdas/shared/queue/sender.js';
import { CHANGE_HANDLERS, IMPORT_WORKER } from '../../lambdas/shared/config/event-sources.js';
import { WEBHOOK_DELIVERY } from '../../lambdas/shared/config/event-sources.js';
import { createLocalFifoQueue, type DeadLetter, type LocalFifoQueue, type QueueHandler } from './fifo-queue.js';
import type { StartingPosition } from './shard-reader.js';
import { startStreamPoller } from './stream-poller.js';

export interface EventRuntimeOptions {
  readonly endpoint: string;
  readonly tableName: string;
  /** Sees every stream record before the forwarder does (the benchmark counts writes with it). */
  readonly onRecords?: (records: readonly DynamoDBRecord[]) => void;
  readonly onError?: (error: Error) => void;
  /**
   * Where to start reading the stream (default TRIM_HORIZON, as the stack deploys it). LATEST
   * skips what is already there, e.g. a table an earlier run loaded and settled.
   */
  readonly startingPosition?: StartingPosition;
  /**
   * Tests only: every stream batch and every queue batch is handed to its handler twice, the
   * second time as a redelivery of the same records (Lambda's event sources deliver at least
   * once), so a test can show that a duplicate changes nothing.
   */
  readonly deliverTwice?: boolean;
  /** Called before each invocation of a handler, with its function name and batch size. */
  readonly onInvoke?: (functionName: string, records: number) => void;
  /**
   * The webhook worker's settings, when not the deployed ones: tests shorten the retry schedule
   * and the timeout, and give a resolver of their own.
   */
  readonly webhooks?: Partial<DeliveryOptions>;
}

export interface EventRuntime {
  /** Resolves once every change made before the call, and all the work it caused, is done. */
  settle(): Promise<void>;
  stop(): Promise<void>;
  /** Messages the list maintainer gave up on, and stream records the forwarder did. */
  failures(): readonly (DeadLetter | { readonly records: readonly DynamoDBRecord[]; readonly error: Error })[];
}

const MAX_SETTLE_ROUNDS = 20;

/** The forwarder's sender over a local queue: batched as for SQS, so the queue's SQS checks see what AWS would. */
export const localSender = (queue: LocalFifoQueue): QueueSender =>
  batchingSender(async (batch) => {
    await queue.send(batch.map((message, j) => ({ id: String(j), body: message.body, groupId: message.groupId, deduplicationId: message.deduplicationId })));
    return [];
  });

/** The handler as the runtime invokes it: announced to `onInvoke`, and twice with `deliverTwice`. */
const invoking =
  <E extends { Records: readonly unknown[] }, C extends unknown[], R>(
    options: EventRuntimeOptions,
    functionName: string,
    handler: (event: E, ...rest: C) => Promise<R>,
  ) =>
  async (event: E, ...rest: C): Promise<R> => {
    options.onInvoke?.(functionName, event.Records.length);
    const first = await handler(event, ...rest);
    if (!options.deliverTwice) return first;
    options.onInvoke?.(functionName, event.Records.length);
    return handler(structuredClone(event), ...rest);
  };

export const startEventRuntime = async (options: EventRuntimeOptions): Promise<EventRuntime> => {
  const streamFailures: { records: readonly DynamoDBRecord[]; error: Error }[] = [];
  const queue = (
    name: string,
    handler: QueueHandler,
    functionName: string,
    limits: { batchSize: number; maxReceiveCount: number } = { batchSize: CHANGE_HANDLERS.queueBatchSize, maxReceiveCount: CHANGE_HANDLERS.maxReceiveCount },
  ) =>
    createLocalFifoQueue({
      name,
      handler: invoking(options, functionName, handler),
      ...limits,
      functionName,
      ...(options.onError ? { onError: options.onError } : {}),
    });
  // The worker holds a message back through the queue that delivered it, as it does on AWS.
  const deliverWebhooks = webhookWorker((record, delayMs) => Promise.resolve(webhookQueue.changeVisibility(record.receiptHandle, delayMs)), options.webhooks);
  const webhookQueue: LocalFifoQueue = queue('webhooks.fifo', deliverWebhooks, 'webhook-worker', {
    batchSize: WEBHOOK_DELIVERY.batchSize,
    maxReceiveCount: WEBHOOK_DELIVERY.maxReceiveCount,
  });
  // One local queue per queue of the stack, named as the forwarder's routes name them.
  const byName = {
    lists: queue('list-changes.fifo', maintainLists, 'list-maintainer'),
    repricing: queue('repricing.fifo', evaluateRepricers, 'repricing-evaluator'),
    imports: queue('imports.fifo', processImports, 'import-worker', { batchSize: IMPORT_WORKER.batchSize, maxReceiveCount: IMPORT_WORKER.maxReceiveCount }),
    webhooks: webhookQueue,
  };
  const queues = Object.values(byName);
  const forward = invoking(options, 'change-forwarder', forwardChanges(Object.fromEntries(Object.entries(byName).map(([name, q]) => [name, localSender(q)]))));
  const poller = await startStreamPoller({
    endpoint: options.endpoint,
    tableName: options.tableName,
    handler: async (event) => {
      options.onRecords?.(event.Records);
      return forward(event);
    },
    batchSize: CHANGE_HANDLERS.streamBatchSize,
    maxRetryAttempts: CHANGE_HANDLERS.streamRetryAttempts,
    functionName: 'change-forwarder',
    ...(options.startingPosition ? { startingPosition: options.startingPosition } : {}),
    onFailure: (records, error) => {
      streamFailures.push({ records, error });
    },
    ...(options.onError ? { onError: options.onError } : {}),
  });

  return {
    async settle() {
      // Work causes work (a decision writes a price change to list; a rebuild step writes the
      // request that starts the next): settle until a round finds nothing queued.
      for (let round = 0; round < MAX_SETTLE_ROUNDS; round++) {
        await poller.settle();
        const queued = queues.reduce((sum, q) => sum + q.depth(), 0);
        await Promise.all(queues.map((q) => q.settle()));
        if (queued === 0) return;
      }
    },
    async stop() {
      await poller.stop();
      await Promise.all(queues.map((q) => q.stop()));
    },
    failures: () => [...queues.flatMap((q) => q.deadLetters()), ...streamFailures],
  };
};
