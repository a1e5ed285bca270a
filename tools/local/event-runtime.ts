/**
 * The event-driven half of the stack, run locally with the same handlers: the table's change
 * stream drives the forwarder (like Lambda's DynamoDB event source mapping) and the forwarder's
 * messages drive the list maintainer, the repricing evaluator and the import worker (like Lambda's SQS FIFO event
 * source mapping), with the batch sizes, batching window and retry limits the stack deploys
 * (lib/constructs/change-handlers.ts). The market loop runs beside them (market-loop.ts): the
 * schedule's ticks, the sync worker and the storefront reader (lib/constructs/market-loop.ts).
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { forwardChanges } from '../../lambdas/functions/forward-changes/forward.js';
import { handler as evaluateRepricers } from '../../lambdas/functions/evaluate-repricers/handler.js';
import { handler as maintainLists } from '../../lambdas/functions/maintain-lists/handler.js';
import type { DeliveryOptions } from '../../lambdas/functions/deliver-webhooks/deliver.js';
import { webhookWorker } from '../../lambdas/functions/deliver-webhooks/worker.js';
import { importWorker } from '../../lambdas/functions/process-imports/handler.js';
import type { RunDeps } from '../../lambdas/imports/run-job.js';
import { storefrontReader } from '../../lambdas/functions/read-storefront/read.js';
import { scheduleMarketSyncs } from '../../lambdas/functions/schedule-market-syncs/schedule.js';
import { planStorefrontReads } from '../../lambdas/read-planning/plan-reads.js';
import { marketSyncWorker } from '../../lambdas/functions/sync-market/sync.js';
import { priceSenderWorker } from '../../lambdas/functions/send-prices/worker.js';
import { batchingSender, type QueueSender } from '../../lambdas/queue/sender.js';
import { CHANGE_HANDLERS, IMPORT_WORKER } from '../../lambdas/config/event-sources.js';
import { WEBHOOK_DELIVERY } from '../../lambdas/config/event-sources.js';
import { createLocalFifoQueue, type DeadLetter, type LocalFifoQueue, type QueueHandler } from './fifo-queue.js';
import { startLocalMarketLoop, type MarketLoopHandlers, type QueueLimits } from './market-loop.js';
import type { StartingPosition } from './shard-reader.js';
import { startStreamPoller } from './stream-poller.js';
import { installClock, installedClock, type Clock } from '../../lambdas/config/clock.js';

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
  /**
   * The market loop's clock and pace. With `tickMs`, the schedule ticks every tickMs (the stack:
   * once a minute); without it, only `tickMarket()` ticks (tests drive the ticks).
   * `storefrontRequestsPerSecond`: the stage's storefront rate (MARKET_SYNC's by default), all of
   * it for the one local reader.
   */
  readonly market?: { readonly tickMs?: number; readonly storefrontRequestsPerSecond?: number };
  /**
   * The time of everything the runtime runs: given, it is installed for the process
   * (lambdas/config/clock.ts) while the runtime runs, so the handlers read it too, and the queues,
   * the schedule and the stream poller keep their time by it; a clock that jumps
   * (tools/local/clock.ts) makes held messages deliverable at once. Without it, the installed
   * clock (the wall clock unless a test installed another): `npm start` runs on the wall clock.
   */
  readonly clock?: Clock;
  /** The import worker's dependencies, when not the deployed ones: a test kills the worker mid-job with them. */
  readonly imports?: RunDeps;
}

export interface EventRuntime {
  /** Resolves once every change made before the call, and all the work it caused, is done. */
  settle(): Promise<void>;
  stop(): Promise<void>;
  /** One tick of the market schedule now (at `time`, now by default): a message per connection to the sync worker. */
  tickMarket(time?: string): Promise<void>;
  /** The runtime's time, the handlers' too. */
  readonly clock: Clock;
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

/** The handlers of the market loop, as deployed. */
const MARKET_HANDLERS: MarketLoopHandlers = {
  schedule: scheduleMarketSyncs,
  plan: planStorefrontReads,
  worker: marketSyncWorker,
  reader: storefrontReader,
  prices: () => priceSenderWorker(),
};

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
  const clock = options.clock ?? installedClock;
  const uninstallClock = options.clock ? installClock(options.clock) : () => undefined;
  const streamFailures: { records: readonly DynamoDBRecord[]; error: Error }[] = [];
  const queue = (
    name: string,
    handler: QueueHandler,
    functionName: string,
    limits: QueueLimits = { batchSize: CHANGE_HANDLERS.queueBatchSize, maxReceiveCount: CHANGE_HANDLERS.maxReceiveCount },
  ) =>
    createLocalFifoQueue({
      name,
      handler: invoking(options, functionName, handler),
      ...limits,
      functionName,
      clock,
      ...(options.onError ? { onError: options.onError } : {}),
    });
  // The worker holds a message back through the queue that delivered it, as it does on AWS.
  const deliverWebhooks = webhookWorker((record, delayMs) => Promise.resolve(webhookQueue.changeVisibility(record.receiptHandle, delayMs)), options.webhooks);
  const webhookQueue: LocalFifoQueue = queue('webhooks.fifo', deliverWebhooks, 'webhook-worker', {
    batchSize: WEBHOOK_DELIVERY.batchSize,
    maxReceiveCount: WEBHOOK_DELIVERY.maxReceiveCount,
  });
  const market = startLocalMarketLoop(MARKET_HANDLERS, {
    queue,
    sender: localSender,
    ...(options.market?.tickMs === undefined ? {} : { tickMs: options.market.tickMs }),
    ...(options.market?.storefrontRequestsPerSecond === undefined ? {} : { storefrontRequestsPerSecond: options.market.storefrontRequestsPerSecond }),
    invokeSchedule: (run) => invoking(options, 'market-schedule', () => run())({ Records: [{}] }),
    clock,
    ...(options.onError ? { onError: options.onError } : {}),
  });
  // One local queue per queue of the stack, named as the forwarder's routes name them.
  const byName = {
    lists: queue('list-changes.fifo', maintainLists, 'list-maintainer'),
    repricing: queue('repricing.fifo', evaluateRepricers, 'repricing-evaluator'),
    imports: queue('imports.fifo', importWorker(options.imports), 'import-worker', {
      batchSize: IMPORT_WORKER.batchSize,
      maxReceiveCount: IMPORT_WORKER.maxReceiveCount,
    }),
    webhooks: webhookQueue,
    marketSync: market.marketSyncQueue,
    prices: market.priceSenderQueue,
  };
  const queues = [...Object.values(byName), market.storefrontQueue];
  const forward = invoking(options, 'change-forwarder', forwardChanges(Object.fromEntries(Object.entries(byName).map(([name, q]) => [name, localSender(q)]))));
  let poller: Awaited<ReturnType<typeof startStreamPoller>>;
  try {
    poller = await startStreamPoller({
      endpoint: options.endpoint,
      tableName: options.tableName,
      handler: async (event) => {
        options.onRecords?.(event.Records);
        return forward(event);
      },
      batchSize: CHANGE_HANDLERS.streamBatchSize,
      maximumBatchingWindowMs: CHANGE_HANDLERS.streamBatchingWindowSeconds * 1000,
      maxRetryAttempts: CHANGE_HANDLERS.streamRetryAttempts,
      functionName: 'change-forwarder',
      clock,
      ...(options.startingPosition ? { startingPosition: options.startingPosition } : {}),
      onFailure: (records, error) => {
        streamFailures.push({ records, error });
      },
      ...(options.onError ? { onError: options.onError } : {}),
    });
  } catch (error) {
    uninstallClock();
    throw error;
  }
  market.startTicks();

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
      await market.stopTicks();
      await poller.stop();
      await Promise.all(queues.map((q) => q.stop()));
      uninstallClock();
    },
    tickMarket: (time) => market.tick(time),
    clock,
    failures: () => [...queues.flatMap((q) => q.deadLetters()), ...streamFailures],
  };
};
