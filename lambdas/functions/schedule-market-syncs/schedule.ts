import { MARKET_SYNC } from '../../config/market-sync.js';
import { listConnectionUids } from '../../data/market/market-watch.js';
import { tickOf } from '../../domain/market-schedule.js';
import { marketSyncGroup, type MarketSyncMessage } from '../../events/market-sync.js';
import { logger } from '../../observability/logger.js';
import type { QueueSender } from '../../queue/sender.js';
import type { PlanReadsResult } from '../../read-planning/plan-reads.js';
import { now } from '../../config/clock.js';

/**
 * The market loop's clock (lambdas/config/market-sync.ts): once a minute, one `tick`
 * message per connection to the sync worker (what is due for the connection is the worker's
 * decision, made from the connection as it is then), and the read planner's run (what pages are
 * read this minute, for every tenant at once: lambdas/read-planning/plan-reads.ts). Each
 * connection is its own message group, so one tenant's long sync holds up no other; a tick sent
 * twice (a retried invocation) is one message, and a plan run twice admits no look twice (leases).
 */
export interface ScheduleEvent {
  /** The tick's time (EventBridge's scheduled event carries it); now when absent. */
  readonly time?: string;
}

export const scheduleMarketSyncs =
  (sender: QueueSender, planReads?: (atMs: number) => Promise<PlanReadsResult>) =>
  async (event: ScheduleEvent = {}): Promise<{ readonly connections: number; readonly reads?: number }> => {
    const parsed = event.time === undefined ? Number.NaN : Date.parse(event.time);
    const tick = tickOf(Number.isNaN(parsed) ? now() : parsed);
    const at = new Date(tick * MARKET_SYNC.tickSeconds * 1000).toISOString();
    const uids = await listConnectionUids();
    const messages = uids.map((uid) => {
      const body: MarketSyncMessage = { kind: 'tick', uid, at };
      return { groupId: marketSyncGroup(uid), deduplicationId: `${uid}#${tick}`, body: JSON.stringify(body) };
    });
    const refused = await sender.send(messages);
    if (refused && refused.length > 0) logger.error('Market ticks refused by the queue', { count: refused.length });
    logger.info('Market tick', { at, connections: uids.length });
    // The plan reads what is due now (the tick's time when that is later): a page looked at late in
    // the last minute is not held to the minute's start, where its 30 s floor would skip it.
    const planned = planReads ? await planReads(Math.max(tick * MARKET_SYNC.tickSeconds * 1000, now())) : undefined;
    return { connections: uids.length, ...(planned ? { reads: planned.reads } : {}) };
  };
