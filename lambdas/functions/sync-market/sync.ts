import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { processFifoBatch } from '../../queue/fifo-batch.js';
import {
  countSkippedEntries,
  findConnectionByUid,
  getConnection,
  recordSyncOutcome,
  type StoredConnection,
  type SyncOutcome,
} from '../../data/connections/connections.js';
import { markSyncRan } from '../../data/connections/sync-requests.js';
import { applyOwnOffers, UNKNOWN_SELLER_ID } from '../../market/market-sync.js';
import { fullSyncWanted, heartbeatDue, ownOffersDue, tickOf } from '../../domain/market-schedule.js';
import { marketSyncMessage, type MarketSyncMessage } from '../../events/market-sync.js';
import { sweepMessage } from '../../events/price-sender.js';
import { logger } from '../../observability/logger.js';
import { loopMetrics } from '../../observability/loop-metrics.js';
import { MarketplaceUnauthorized, MarketplaceUnavailable, MarketplaceRateLimited, MarketplaceMalformed, type MarketplacePort } from '../../marketplace/port.js';
import { marketplaceFor } from '../../marketplace/registry.js';
import { withMarketplaceRetries, type RetryOptions } from '../../marketplace/retrying.js';
import { openConnectionSecret } from '../../marketplace/secrets.js';
import type { QueueSender } from '../../queue/sender.js';
import { syncOwnOffers, type OwnOffersSync } from './own-offers.js';
import { holdAfterRateLimit, sellerApiHeld } from './seller-api-hold.js';
import { parseMessageBody } from '../../queue/message-body.js';
import { READ_PLANNER, type ReadPlannerSettings } from '../../config/read-planner.js';
import { bringPageForward } from '../../data/market/page-watches.js';
import { forwardAfterFullSync } from '../../read-planning/sync-forward.js';
import { now as clockNow } from '../../config/clock.js';

/**
 * The sync worker: one connection's tick (or marketplace event) per message. Runs the
 * connection's full own-offer sync when due, and reads one own offer an event named; a full sync
 * the connection waited for (its first, or one the client asked for) and an event bring the
 * looks at their products' pages forward (the read planner, lambdas/read-planning/, reads them).
 * A marketplace fault never fails the
 * message (its FIFO group would hold the connection's next ticks back): it is recorded on the
 * connection, and the next tick tries again; only a fault of the table fails it, to be redelivered.
 */
export interface MarketSyncDeps {
  /** The read planner's settings (the stage's budget): how far apart a requested sync's looks are spaced. */
  readonly planner?: ReadPlannerSettings;
  /** The price sender's queue: each tick asks it to sweep the connection (due retries, missing confirmations). */
  readonly prices?: QueueSender;
  /** Tests shorten the waits between marketplace retries. */
  readonly retry?: Partial<RetryOptions>;
  readonly now?: () => number;
}

/** A tick handled this late is skipped: newer ticks of the connection are queued behind it. */
const STALE_TICK_MS = 5 * 60_000;

interface Target {
  readonly clientId: string;
  readonly stored: StoredConnection;
  readonly port: MarketplacePort;
  readonly storefrontUrl: string;
}

/** The connection a message names, when it is still there, allowed to sync, and its marketplace is configured. */
const targetOf = async (uid: string): Promise<Target | undefined> => {
  const found = await findConnectionByUid(uid);
  if (!found) return undefined;
  const stored = await getConnection(found.clientId, found.connector);
  if (!stored || stored.record.uid !== uid) return undefined;
  // A refused key stops the syncs until the client puts a new one.
  if (stored.record.status === 'unauthorized') return undefined;
  const lookup = marketplaceFor(found.connector);
  if (lookup.kind !== 'adapter') {
    logger.warn('Connection not synced: no marketplace for its connector on this stage', { connector: found.connector, kind: lookup.kind });
    return undefined;
  }
  return { clientId: found.clientId, stored, port: lookup.port, storefrontUrl: lookup.storefrontUrl };
};

const syncConnectorOf = (target: Target) => ({
  uid: target.stored.record.connector,
  sellerId: target.stored.record.seller_id ?? UNKNOWN_SELLER_ID,
  storefrontUrl: target.storefrontUrl,
});

const faultMessage = (error: unknown): string | undefined => {
  if (error instanceof MarketplaceUnauthorized) return 'The marketplace refused the API key; put a new key to resume.';
  if (error instanceof MarketplaceUnavailable) return `The marketplace could not be reached: ${error.message}`;
  if (error instanceof MarketplaceRateLimited) return 'The marketplace asked to slow down; the sync resumes on its next run.';
  if (error instanceof MarketplaceMalformed) return 'The marketplace answered with an undocumented shape; nothing of it was written.';
  return undefined;
};

/** Records what changed on the connection only: a sync that found nothing new writes nothing. */
const record = async (target: Target, outcome: SyncOutcome): Promise<void> => {
  const before = target.stored.record;
  loopMetrics.connectionStatus(before.connector, outcome.status ?? before.status);
  const changes: SyncOutcome = Object.fromEntries(
    Object.entries(outcome).filter(([field, value]) => value !== undefined && before[field as keyof typeof before] !== value),
  );
  if (Object.keys(changes).length > 0) await recordSyncOutcome(target.clientId, before, changes);
};

/**
 * The statuses a sync sets and lifts: `error` (its own faults) and `connected`, and
 * `unauthorized` for a refused key. A pause is the breaker's, lifted only by the client's resume:
 * while paused, a sync reports nothing on the status or its reason (the reason stays the breaker's).
 */
const SYNC_OWNED_STATUSES: ReadonlySet<string> = new Set(['connected', 'error']);

const handleTick = async (message: Extract<MarketSyncMessage, { kind: 'tick' }>, deps: MarketSyncDeps): Promise<void> => {
  const nowMs = deps.now?.() ?? clockNow();
  const atMs = Date.parse(message.at);
  if (nowMs - atMs > STALE_TICK_MS) return;
  const target = await targetOf(message.uid);
  if (!target) return;
  const { record: connection } = target.stored;
  const tick = tickOf(atMs);
  const full = fullSyncWanted(connection);
  const now = new Date(nowMs).toISOString();
  let sync: OwnOffersSync | undefined;
  if (ownOffersDue(connection, tick) && !sellerApiHeld(target.stored, 'Own-offer sync', nowMs)) {
    try {
      const apiKey = await openConnectionSecret('marketplace-key', target.clientId, connection.connector, target.stored.sealedKey);
      const started = performance.now();
      sync = await syncOwnOffers(target.port, apiKey, target.clientId, syncConnectorOf(target), { now, ...(deps.retry ? { retry: deps.retry } : {}) });
      loopMetrics.syncDuration(connection.connector, performance.now() - started);
    } catch (error) {
      await holdAfterRateLimit(target.clientId, target.stored, error, nowMs);
      const fault = faultMessage(error);
      if (fault === undefined) throw error;
      const unauthorized = error instanceof MarketplaceUnauthorized;
      logger.warn('Own-offer sync failed', { connector: connection.connector, uid: connection.uid, fault: (error as Error).name });
      if (SYNC_OWNED_STATUSES.has(connection.status)) await record(target, { status: unauthorized ? 'unauthorized' : 'error', last_error: fault });
      if (unauthorized) return;
    }
  }
  const refusedSweep = await deps.prices?.send([sweepMessage(target.clientId, connection.connector, message.at)]);
  if (refusedSweep && refusedSweep.length > 0) logger.error('Price sweep refused by the queue', { connector: connection.connector });
  const reads =
    full && sync !== undefined ? await forwardAfterFullSync(target.clientId, connection.connector, nowMs, deps.planner ?? READ_PLANNER) : { forwarded: 0 };
  if (sync) {
    logger.info('Own-offer sync', {
      connector: connection.connector,
      uid: connection.uid,
      pages: sync.pages,
      offers: sync.offersSeen,
      count: sync.count,
      complete: sync.complete,
      written: sync.written,
      forwarded: reads.forwarded,
    });
    await countSkippedEntries(target.clientId, connection.connector, sync.skipped);
    const stamp = sync.written > 0 || full || heartbeatDue(connection.last_sync_at, nowMs);
    await record(target, {
      ...(SYNC_OWNED_STATUSES.has(connection.status) ? { status: 'connected' as const, last_error: sync.problem ?? null } : {}),
      offers_synced: sync.offersSeen,
      ...(stamp ? { last_sync_at: now } : {}),
    });
    // The full sync a client asked for has run and brought its looks forward: the next request may start another.
    if (full) await markSyncRan(target.clientId, target.stored);
  }
};

const handleOffer = async (message: Extract<MarketSyncMessage, { kind: 'offer' }>, deps: MarketSyncDeps): Promise<void> => {
  const target = await targetOf(message.uid);
  if (!target) return;
  const { record: connection } = target.stored;
  const nowMs = deps.now?.() ?? clockNow();
  const now = new Date(nowMs).toISOString();
  if (sellerApiHeld(target.stored, 'Offer read for a marketplace event', nowMs)) return;
  try {
    const apiKey = await openConnectionSecret('marketplace-key', target.clientId, connection.connector, target.stored.sealedKey);
    const snapshot = await withMarketplaceRetries(() => target.port.readOwnOffer(apiKey, message.offerId), deps.retry);
    if (!snapshot) return;
    await applyOwnOffers(target.clientId, syncConnectorOf(target), [snapshot], now);
    if (snapshot.productLineId === undefined) return;
    await bringPageForward(
      connection.connector,
      snapshot.productLineId,
      { reason: 'event', clientId: target.clientId, atMs: nowMs },
      deps.planner ?? READ_PLANNER,
    );
  } catch (error) {
    await holdAfterRateLimit(target.clientId, target.stored, error, nowMs);
    const fault = faultMessage(error);
    if (fault === undefined) throw error;
    // The event only brought a look forward: the scheduled syncs still come.
    logger.warn('Offer read for a marketplace event failed', { connector: connection.connector, fault: (error as Error).name });
    if (error instanceof MarketplaceUnauthorized && SYNC_OWNED_STATUSES.has(connection.status))
      await record(target, { status: 'unauthorized', last_error: fault });
  }
};

export const marketSyncWorker =
  (deps: MarketSyncDeps) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const handleRecord = async (sqsRecord: SQSRecord): Promise<void> => {
      const parsed = parseMessageBody(marketSyncMessage, sqsRecord.body);
      if (!parsed.success) {
        logger.error('Market sync message refused', { messageId: sqsRecord.messageId });
        return;
      }
      const message = parsed.data;
      if (message.kind === 'tick') await handleTick(message, deps);
      else await handleOffer(message, deps);
    };
    return processFifoBatch(event, handleRecord, { throwOnFullBatchFailure: false });
  };
