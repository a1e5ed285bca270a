import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { QueueSender } from '../shared/queue/sender.js';

/**
 * The sync worker: one connection's tick (or marketplace event) per message. Runs the
 * connection's full own-offer sync when due, reads one own offer an event named, and sends a
 * storefront read for every product whose tier is due.
 */
export interface MarketSyncDeps {
  /** The storefront reader's queue. */
  readonly storefront: QueueSender;
}

export const marketSyncWorker =
  (deps: MarketSyncDeps) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    void deps;
    void event;
    throw new Error('not yet');
  };
