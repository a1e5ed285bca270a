/**
 * The market loop run locally (lambdas/config/market-sync.ts): the schedule's tick, the
 * market-sync queue driving the sync worker, the storefront queue driving the reader, and the
 * price-sender queue driving the sender (lambdas/config/price-sending.ts), with
 * the batch sizes and retry limits the stack deploys (lib/constructs/market-loop.ts). The
 * handlers are given, so the event runtime passes the real ones and a test passes fakes.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { MARKET_SYNC } from '../../lambdas/config/market-sync.js';
import { PRICE_SENDING } from '../../lambdas/config/price-sending.js';
import type { QueueSender } from '../../lambdas/queue/sender.js';
import { READ_PLANNER, type ReadPlannerSettings } from '../../lambdas/config/read-planner.js';
import type { PlanReadsResult } from '../../lambdas/read-planning/plan-reads.js';
import type { LocalFifoQueue, QueueHandler } from './fifo-queue.js';
import { installedClock, type Clock } from '../../lambdas/config/clock.js';

export interface MarketLoopHandlers {
  readonly schedule: (sender: QueueSender, planReads: (atMs: number) => Promise<PlanReadsResult>) => (event: { time?: string }) => Promise<unknown>;
  /** The read planner over the storefront queue, run by each tick of the schedule. */
  readonly plan: (storefront: QueueSender, settings: ReadPlannerSettings) => (atMs: number) => Promise<PlanReadsResult>;
  readonly worker: (deps: { readonly prices: QueueSender; readonly planner: ReadPlannerSettings }) => (event: SQSEvent) => Promise<SQSBatchResponse>;
  readonly prices: () => (event: SQSEvent) => Promise<SQSBatchResponse>;
  readonly reader: (
    hold: (record: SQSRecord, delayMs: number) => Promise<void>,
    options: { readonly stageRequestsPerSecond: number },
  ) => (event: SQSEvent) => Promise<SQSBatchResponse>;
}

export interface QueueLimits {
  readonly batchSize: number;
  readonly maxReceiveCount: number;
  readonly maxConcurrency?: number;
}

export interface MarketLoopOptions {
  /** Builds a local queue driving a handler, as the event runtime builds every other one. */
  readonly queue: (name: string, handler: QueueHandler, functionName: string, limits: QueueLimits) => LocalFifoQueue;
  /** Wraps a queue's sender (the runtime's batching sender over a local queue). */
  readonly sender: (queue: LocalFifoQueue) => QueueSender;
  /** With it, a tick every tickMs; without it, ticks only when `tick()` is called. */
  readonly tickMs?: number;
  /** The stage's storefront rate: locally one reader takes all of it. */
  readonly storefrontRequestsPerSecond?: number;
  /** Runs the schedule once, as the runtime announces and repeats handler calls (onInvoke, deliverTwice). */
  readonly invokeSchedule?: (run: () => Promise<unknown>) => Promise<unknown>;
  readonly onError?: (error: Error) => void;
  /** The time of a tick not given one (the installed clock by default). */
  readonly clock?: Clock;
}

export interface LocalMarketLoop {
  /** The forwarder's target for marketplace events (its route `marketSync`). */
  readonly marketSyncQueue: LocalFifoQueue;
  readonly storefrontQueue: LocalFifoQueue;
  /** The price sender's queue (the forwarder's route `prices`, and each tick's sweep). */
  readonly priceSenderQueue: LocalFifoQueue;
  /** One tick now: one message per connection to the market-sync queue. */
  tick(time?: string): Promise<void>;
  /** Starts the timer, with `tickMs` (once the rest of the runtime runs). */
  startTicks(): void;
  /** Stops the timer and waits for a tick under way; the queues are stopped by their owner. */
  stopTicks(): Promise<void>;
}

export const startLocalMarketLoop = (handlers: MarketLoopHandlers, options: MarketLoopOptions): LocalMarketLoop => {
  if (options.tickMs !== undefined && !(Number.isFinite(options.tickMs) && options.tickMs > 0))
    throw new RangeError(`tickMs must be a positive number, not ${options.tickMs}`);
  // The reader holds a message back through the queue that delivered it, as it does on AWS.
  const rate = options.storefrontRequestsPerSecond ?? MARKET_SYNC.storefrontRequestsPerSecond;
  const planner = { ...READ_PLANNER, readsPerSecond: rate };
  const read = handlers.reader((record, delayMs) => Promise.resolve(storefrontQueue.changeVisibility(record.receiptHandle, delayMs)), {
    stageRequestsPerSecond: rate,
  });
  // One reader at a time: on AWS the readers share the stage's rate; here one takes all of it.
  const storefrontQueue: LocalFifoQueue = options.queue('storefront.fifo', read, 'storefront-reader', {
    batchSize: MARKET_SYNC.readerBatchSize,
    maxReceiveCount: MARKET_SYNC.readerMaxReceiveCount,
    maxConcurrency: 1,
  });
  const priceSenderQueue = options.queue('price-sender.fifo', handlers.prices(), 'price-sender', {
    batchSize: PRICE_SENDING.senderBatchSize,
    maxReceiveCount: PRICE_SENDING.senderMaxReceiveCount,
  });
  const worker = handlers.worker({ prices: options.sender(priceSenderQueue), planner });
  const marketSyncQueue = options.queue('market-sync.fifo', worker, 'market-sync-worker', {
    batchSize: MARKET_SYNC.workerBatchSize,
    maxReceiveCount: MARKET_SYNC.workerMaxReceiveCount,
  });
  const schedule = handlers.schedule(options.sender(marketSyncQueue), handlers.plan(options.sender(storefrontQueue), planner));
  const invoke = options.invokeSchedule ?? ((run) => run());
  const clock = options.clock ?? installedClock;
  const tick = async (time = new Date(clock.now()).toISOString()): Promise<void> => {
    await invoke(() => schedule({ time }));
  };

  // A tick that takes longer than the period is not overlapped: the next one is skipped.
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const onTimer = () => {
    if (running) return;
    running = tick()
      .catch((error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error))))
      .finally(() => {
        running = undefined;
      });
  };

  return {
    marketSyncQueue,
    storefrontQueue,
    priceSenderQueue,
    tick,
    startTicks() {
      if (options.tickMs === undefined || timer) return;
      timer = setInterval(onTimer, options.tickMs);
      timer.unref();
    },
    async stopTicks() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
};
