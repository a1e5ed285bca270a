import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { MARKET_SYNC } from '../../../lambdas/config/market-sync.js';
import { PRICE_SENDING } from '../../../lambdas/config/price-sending.js';
import type { QueueSender } from '../../../lambdas/queue/sender.js';
import { localSender } from '../../../tools/local/event-runtime.js';
import { createLocalFifoQueue, type LocalFifoQueue, type QueueHandler } from '../../../tools/local/fifo-queue.js';
import { startLocalMarketLoop, type MarketLoopHandlers, type QueueLimits } from '../../../tools/local/market-loop.js';

/** A fake market: the schedule ticks these connections and runs the plan, which asks one page read per connection; the reader records what it read. */
const fakeMarket = (connections: readonly string[]) => {
  const ticks: string[] = [];
  const worked: string[] = [];
  const read: string[] = [];
  const swept: string[] = [];
  const readerOptions: { stageRequestsPerSecond: number }[] = [];
  const plannedRates: number[] = [];
  let scheduleRuns = 0;
  let releaseSchedule: (() => void) | undefined;
  const handlers: MarketLoopHandlers = {
    plan: (storefront, settings) => async (atMs) => {
      plannedRates.push(settings.readsPerSecond);
      await storefront.send(connections.map((uid) => ({ groupId: `${uid}#p`, deduplicationId: `${uid}:${atMs}:p`, body: JSON.stringify({ uid }) })));
      return { reads: connections.length, due: connections.length, early: 0, tenants: connections.length };
    },
    schedule: (sender: QueueSender, planReads) => async (event) => {
      scheduleRuns++;
      ticks.push(event.time ?? '');
      if (releaseSchedule === undefined && blockSchedule) await new Promise<void>((resolve) => (releaseSchedule = resolve));
      await sender.send(
        connections.map((uid) => ({ groupId: uid, deduplicationId: `${uid}:${event.time}`, body: JSON.stringify({ kind: 'tick', uid, at: event.time }) })),
      );
      await planReads(Date.parse(event.time ?? ''));
      return { connections: connections.length };
    },
    worker:
      ({ prices }) =>
      async (event: SQSEvent): Promise<SQSBatchResponse> => {
        for (const record of event.Records) {
          const { uid, at } = JSON.parse(record.body) as { uid: string; at: string };
          worked.push(uid);
          await prices.send([{ groupId: `${uid}#s`, deduplicationId: `${uid}:${at}:s`, body: JSON.stringify({ uid }) }]);
        }
        return { batchItemFailures: [] };
      },
    prices:
      () =>
      async (event: SQSEvent): Promise<SQSBatchResponse> => {
        swept.push(...event.Records.map((record) => (JSON.parse(record.body) as { uid: string }).uid));
        return { batchItemFailures: [] };
      },
    reader: (_hold, options) => {
      readerOptions.push(options);
      return async (event: SQSEvent): Promise<SQSBatchResponse> => {
        read.push(...event.Records.map((record) => (JSON.parse(record.body) as { uid: string }).uid));
        return { batchItemFailures: [] };
      };
    },
  };
  let blockSchedule = false;
  return {
    handlers,
    ticks,
    worked,
    read,
    swept,
    readerOptions,
    plannedRates,
    runs: () => scheduleRuns,
    blockNextSchedule: () => {
      blockSchedule = true;
    },
    release: () => releaseSchedule?.(),
  };
};

const queueFactory =
  (built: Map<string, QueueLimits>, queues: LocalFifoQueue[]) => (name: string, handler: QueueHandler, functionName: string, limits: QueueLimits) => {
    built.set(functionName, limits);
    const queue = createLocalFifoQueue({ name, handler, functionName, ...limits });
    queues.push(queue);
    return queue;
  };

const settleAll = async (queues: readonly LocalFifoQueue[]) => {
  for (let round = 0; round < 5; round++) await Promise.all(queues.map((q) => q.settle()));
};

const waitFor = async (condition: () => boolean, timeoutMs = 2_000) => {
  const until = Date.now() + timeoutMs;
  while (!condition() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('the local market loop', () => {
  it('sends one tick per connection to the sync worker, whose storefront reads reach the reader and sweeps the price sender', async () => {
    // Prepare
    const market = fakeMarket(['c1', 'c2', 'c3']);
    const built = new Map<string, QueueLimits>();
    const queues: LocalFifoQueue[] = [];
    const loop = startLocalMarketLoop(market.handlers, { queue: queueFactory(built, queues), sender: localSender, storefrontRequestsPerSecond: 4 });

    // Act
    await loop.tick('2026-11-25T17:00:00.000Z');
    await settleAll(queues);

    // Assert
    expect(market.ticks).toEqual(['2026-11-25T17:00:00.000Z']);
    expect([...market.worked].sort()).toEqual(['c1', 'c2', 'c3']);
    expect([...market.read].sort()).toEqual(['c1', 'c2', 'c3']);
    expect([...market.swept].sort()).toEqual(['c1', 'c2', 'c3']);
    expect(built.get('price-sender')).toEqual({ batchSize: PRICE_SENDING.senderBatchSize, maxReceiveCount: PRICE_SENDING.senderMaxReceiveCount });
    expect(market.readerOptions).toEqual([{ stageRequestsPerSecond: 4 }]);
    expect(market.plannedRates).toEqual([4]);
    expect(built.get('market-sync-worker')).toEqual({ batchSize: MARKET_SYNC.workerBatchSize, maxReceiveCount: MARKET_SYNC.workerMaxReceiveCount });
    expect(built.get('storefront-reader')).toEqual({
      batchSize: MARKET_SYNC.readerBatchSize,
      maxReceiveCount: MARKET_SYNC.readerMaxReceiveCount,
      maxConcurrency: 1,
    });
    await loop.stopTicks();
    await Promise.all(queues.map((q) => q.stop()));
  });

  it("gives the one local reader the stage's whole rate by default", async () => {
    const market = fakeMarket([]);
    const queues: LocalFifoQueue[] = [];
    startLocalMarketLoop(market.handlers, { queue: queueFactory(new Map(), queues), sender: localSender });
    expect(market.readerOptions).toEqual([{ stageRequestsPerSecond: MARKET_SYNC.storefrontRequestsPerSecond }]);
    await Promise.all(queues.map((q) => q.stop()));
  });

  it('ticks on its timer only once started, and not after stopTicks', async () => {
    // Prepare
    const market = fakeMarket(['c1']);
    const queues: LocalFifoQueue[] = [];
    const loop = startLocalMarketLoop(market.handlers, { queue: queueFactory(new Map(), queues), sender: localSender, tickMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(market.runs()).toBe(0);

    // Act
    loop.startTicks();
    await waitFor(() => market.runs() >= 2);
    await loop.stopTicks();
    const runsAtStop = market.runs();
    await new Promise((resolve) => setTimeout(resolve, 60));

    // Assert
    expect(runsAtStop).toBeGreaterThanOrEqual(2);
    expect(market.runs()).toBe(runsAtStop);
    expect(market.ticks.every((time) => !Number.isNaN(Date.parse(time)))).toBe(true);
    await Promise.all(queues.map((q) => q.stop()));
  });

  it('skips a tick while the previous one runs, and stopTicks waits for it', async () => {
    // Prepare
    const market = fakeMarket(['c1']);
    market.blockNextSchedule();
    const queues: LocalFifoQueue[] = [];
    const loop = startLocalMarketLoop(market.handlers, { queue: queueFactory(new Map(), queues), sender: localSender, tickMs: 5 });

    // Act
    loop.startTicks();
    await waitFor(() => market.runs() >= 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const runsWhileBlocked = market.runs();
    const stopped = loop.stopTicks();
    market.release();
    await stopped;
    await settleAll(queues);

    // Assert
    expect(runsWhileBlocked).toBe(1);
    expect(market.runs()).toBe(1);
    expect(market.worked).toEqual(['c1']);
    await Promise.all(queues.map((q) => q.stop()));
  });

  it('reports a failed tick to onError and ticks on', async () => {
    // Prepare
    const errors: Error[] = [];
    let calls = 0;
    const market = fakeMarket([]);
    const queues: LocalFifoQueue[] = [];
    const loop = startLocalMarketLoop(
      {
        ...market.handlers,
        schedule: () => async () => {
          calls++;
          throw new Error('directory unavailable');
        },
      },
      { queue: queueFactory(new Map(), queues), sender: localSender, tickMs: 5, onError: (error) => errors.push(error) },
    );

    // Act
    loop.startTicks();
    await waitFor(() => calls >= 2);
    await loop.stopTicks();

    // Assert
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(errors[0]?.message).toBe('directory unavailable');
    await Promise.all(queues.map((q) => q.stop()));
  });

  it('refuses a tick period that is not a positive number', () => {
    const market = fakeMarket([]);
    expect(() => startLocalMarketLoop(market.handlers, { queue: queueFactory(new Map(), []), sender: localSender, tickMs: 0 })).toThrow(RangeError);
  });
});
