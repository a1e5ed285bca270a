import type { QueueSender } from '../shared/queue/sender.js';

/**
 * The market loop's clock (lambdas/shared/config/market-sync.ts): once a minute, one `tick`
 * message per connection to the sync worker. Sends only: what is due is the worker's decision,
 * made from the connection as it is then.
 */
export interface ScheduleEvent {
  /** The tick's time (EventBridge's scheduled event carries it); now when absent. */
  readonly time?: string;
}

export const scheduleMarketSyncs =
  (sender: QueueSender) =>
  async (event: ScheduleEvent = {}): Promise<{ readonly connections: number }> => {
    void sender;
    void event;
    throw new Error('not yet');
  };
