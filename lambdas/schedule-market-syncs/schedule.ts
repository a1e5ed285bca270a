import { MARKET_SYNC } from '../config/market-sync.js';
import { listConnectionUids } from '../data/market/market-watch.js';
import { tickOf } from '../domain/market-schedule.js';
import { marketSyncGroup, type MarketSyncMessage } from '../events/market-sync.js';
import { logger } from '../observability/logger.js';
import type { QueueSender } from '../queue/sender.js';

/**
 * The market loop's clock (lambdas/config/market-sync.ts): once a minute, one `tick`
 * message per connection to the sync worker. Sends only: what is due is the worker's decision,
 * made from the connection as it is then. Each connection is its own message group, so one
 * tenant's long sync holds up no other; a tick sent twice (a retried invocation) is one message.
 */
export interface ScheduleEvent {
  /** The tick's time (EventBridge's scheduled event carries it); now when absent. */
  readonly time?: string;
}

export const scheduleMarketSyncs =
  (sender: QueueSender) =>
  async (event: ScheduleEvent = {}): Promise<{ readonly connections: number }> => {
    const parsed = event.time === undefined ? Number.NaN : Date.parse(event.time);
    const tick = tickOf(Number.isNaN(parsed) ? Date.now() : parsed);
    const at = new Date(tick * MARKET_SYNC.tickSeconds * 1000).toISOString();
    const uids = await listConnectionUids();
    const messages = uids.map((uid) => {
      const body: MarketSyncMessage = { kind: 'tick', uid, at };
      return { groupId: marketSyncGroup(uid), deduplicationId: `${uid}#${tick}`, body: JSON.stringify(body) };
    });
    const refused = await sender.send(messages);
    if (refused && refused.length > 0) logger.error('Market ticks refused by the queue', { count: refused.length });
    logger.info('Market tick', { at, connections: uids.length });
    return { connections: uids.length };
  };
