/**
 * The market loop driven as its event sources drive it on AWS, step by step for a test: the
 * schedule's tick (or ticks for named connections), the sync worker, the stream's work
 * (`api.settle()`: page watches registered), then the read planner half a minute into the
 * tick's minute (what the next scheduled plan would find due) and the page reads it admitted,
 * in batches of ten, then the stream's work again. Reads the reader held back (a failed page)
 * can be handed to it again, as SQS would once their hold ends.
 */
import type { SQSRecord } from 'aws-lambda';
import { storefrontReader } from '../../lambdas/functions/read-storefront/read.js';
import { scheduleMarketSyncs } from '../../lambdas/functions/schedule-market-syncs/schedule.js';
import { marketSyncWorker } from '../../lambdas/functions/sync-market/sync.js';
import { READ_PLANNER } from '../../lambdas/config/read-planner.js';
import { MARKET_SYNC } from '../../lambdas/config/market-sync.js';
import { planStorefrontReads } from '../../lambdas/read-planning/plan-reads.js';
import { marketSyncGroup, type MarketSyncMessage } from '../../lambdas/events/market-sync.js';
import type { QueueMessage } from '../../lambdas/queue/sender.js';
import type { TestApi } from './local-api.js';
import { capturingSender, sqsEventOf } from './sqs-events.js';

export interface HeldRead {
  readonly record: SQSRecord;
  readonly delayMs: number;
}

export interface TickResult {
  readonly syncFailures: number;
  /** Page reads the tick's plan admitted (one per page, for every tenant watching it). */
  readonly reads: number;
}

const MINUTE_MS = MARKET_SYNC.tickSeconds * 1000;
const PLAN_AFTER_TICK_MS = MINUTE_MS / 2;

/**
 * The harness keeps no time of its own: it runs on the test API's clock (`api.clock`, the one the
 * handlers, the event runtime and a test simulator read). Each tick moves that clock forward to
 * the next minute and ticks there, then half a minute on to plan and read, so ticks follow each
 * other a minute apart however fast the test runs, and the reader never reads before the plan
 * that admitted its pages.
 */
export const marketHarness = (api: TestApi, options: { readonly requestsPerSecond?: number } = {}) => {
  const ticks = capturingSender();
  const reads = capturingSender();
  const held: HeldRead[] = [];
  // The stage's rate by default, under the simulator's storefront limit as under Takealot's: a tick
  // reads every page it plans, and faster than the limit the storefront would refuse some.
  const rate = options.requestsPerSecond ?? MARKET_SYNC.storefrontRequestsPerSecond;
  const planner = { ...READ_PLANNER, readsPerSecond: rate };
  const worker = marketSyncWorker({ planner, retry: { baseDelayMs: 1, maxWaitMs: 2_000 } });
  const plan = planStorefrontReads(reads, planner);
  const reader = storefrontReader(
    (record, delayMs) => {
      held.push({ record, delayMs });
      return Promise.resolve();
    },
    { stageRequestsPerSecond: rate },
  );
  const nextTickTime = () => {
    const minute = (Math.floor(api.clock.now() / MINUTE_MS) + 1) * MINUTE_MS;
    api.clock.advanceTo(minute);
    return new Date(minute).toISOString();
  };

  const readAll = async (messages: readonly QueueMessage[]) => {
    for (let n = 0; n < messages.length; n += 10) await reader(sqsEventOf(messages.slice(n, n + 10)));
  };

  return {
    held,
    reader,
    /**
     * One tick: of the schedule (every connection), or for the named connections only. With
     * `redeliver`, reads held back are handed to the reader again, up to that many rounds.
     */
    async tick(only?: { readonly uids?: readonly string[]; readonly redeliver?: number }): Promise<TickResult> {
      const at = nextTickTime();
      if (only?.uids) {
        await ticks.send(
          only.uids.map((uid) => {
            const body: MarketSyncMessage = { kind: 'tick', uid, at };
            return { groupId: marketSyncGroup(uid), deduplicationId: `${uid}#${at}`, body: JSON.stringify(body) };
          }),
        );
      } else {
        await scheduleMarketSyncs(ticks)({ time: at });
      }
      const result = await worker(sqsEventOf(ticks.take()));
      await api.settle();
      // The plan half a minute into the tick's minute: the pages the worker brought forward (a
      // requested sync spaces them a fraction of a second apart) are due by then, as the next
      // scheduled plan would find them, and the reads end before the next minute. Later if the
      // tick's work took longer. The reader reads after it, on the same clock.
      api.clock.advanceTo(Date.parse(at) + PLAN_AFTER_TICK_MS);
      await plan(api.clock.now());
      const asked = reads.take();
      await readAll(asked);
      for (let round = 0; round < (only?.redeliver ?? 0) && held.length > 0; round++) {
        const again = held.splice(0).map(({ record }) => ({
          groupId: record.attributes.MessageGroupId ?? record.messageId,
          deduplicationId: record.attributes.MessageDeduplicationId ?? record.messageId,
          body: record.body,
        }));
        await readAll(again);
      }
      await api.settle();
      return { syncFailures: result.batchItemFailures.length, reads: asked.length };
    },
  };
};
