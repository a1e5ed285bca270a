import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { MARKET_SYNC } from '../config/market-sync.js';
import { MARKETPLACE_HOLD_MAX_MS, STORED_HOLD_MAX_MS } from '../config/marketplace-holds.js';
import { countSkippedEntries, findConnectionByUid, getConnection, type StoredConnection } from '../data/connections/connections.js';
import { applyProductMarket, recordMarketUnseen } from '../data/market/market-sync.js';
import { getHostHold, putHostHold } from '../data/market/market-watch.js';
import { storefrontReadMessage, type StoreFrontReadMessage } from '../events/market-sync.js';
import { logger } from '../observability/logger.js';
import { loopMetrics } from '../observability/loop-metrics.js';
import {
  MarketplaceMalformed,
  MarketplaceNotFound,
  MarketplaceRateLimited,
  MarketplaceUnavailable,
  type MarketplacePort,
  type ProductMarket,
} from '../marketplace/port.js';
import { marketplaceFor } from '../marketplace/registry.js';
import { fifoBatchResponse } from '../queue/fifo-batch.js';
import { parseMessageBody } from '../queue/message-body.js';
import { hostPace } from './pace.js';

/** Holds a message back: SQS's ChangeMessageVisibility on AWS, the local queue's equivalent under `npm start`. */
export type HoldMessage = (record: SQSRecord, delayMs: number) => Promise<void>;

export interface StorefrontReaderOptions {
  /** Requests per second this reader may send to one host (the stage's rate divided among the readers). */
  readonly requestsPerSecond?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * The storefront reader: reads product pages at a polite pace per host and applies them
 * (data/market/market-sync.ts applyProductMarket). What it could not see makes the product's market
 * unknown (an empty or malformed page, a refusal, a missing page, a page of another variant of
 * the product line, a page whose rivals could not be read, or a connection whose seller id
 * nobody has stated, so the own offer cannot be told from a rival's): its repricers then decide
 * nothing until a page shows the buy box again. A refused read (429, or the storefront's 403) holds
 * the host for its Retry-After (or a doubling backoff without one): the hold is stored, so every
 * reader waits it out, and the batch's remaining messages are held back as long. A page that
 * fails (5xx, timeout) is held back with a short backoff and read again; so is a page without a
 * buy box, a few times (`emptyPageRereads`); a malformed or missing page is logged and skipped
 * (the next tier read comes anyway). Messages of one product stay in
 * order: after a failed one, the later ones of its group are held back too.
 */
/** Below this much time left in the invocation, the batch's rest goes back to the queue untouched. */
const RESERVE_MS = 15_000;
/** A hold that ended this long ago no longer counts towards the next backoff. */
const BACKOFF_MEMORY_MS = 10 * 60_000;

const retryDelayMs = (receiveCount: number): number => Math.min(60_000, 2_000 * 2 ** Math.max(0, receiveCount - 1));

const hostOf = (url: string | undefined): string => {
  try {
    return url ? new URL(url).host : 'storefront';
  } catch {
    return 'storefront';
  }
};

interface Target {
  readonly clientId: string;
  readonly stored: StoredConnection;
  readonly port: MarketplacePort;
  readonly storefrontUrl: string;
}

/** A host's hold as this batch knows it: read from the table at the host's first read, raised by a refusal. */
interface HostState {
  holdUntil: number;
  refusals: number;
}

export const storefrontReader = (hold: HoldMessage, options: StorefrontReaderOptions = {}) => {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const pace = hostPace(1000 / (options.requestsPerSecond ?? MARKET_SYNC.storefrontRequestsPerSecond));

  return async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    const hosts = new Map<string, HostState>();
    const hostState = async (host: string): Promise<HostState> => {
      let state = hosts.get(host);
      if (!state) {
        // A stored hold ending beyond the cap was not set under it: not obeyed (the cap bounds every host's hold).
        const stored = await getHostHold(host).then((hold) => (hold && hold.holdUntil > now() + STORED_HOLD_MAX_MS ? undefined : hold));
        state = { holdUntil: stored?.holdUntil ?? 0, refusals: stored && now() - stored.holdUntil < BACKOFF_MEMORY_MS ? stored.refusals : 0 };
        hosts.set(host, state);
      }
      return state;
    };
    const failures = new Set<string>();
    /** Groups with a failed message in this batch, and how long it was held: their later messages wait as long. */
    const failedGroups = new Map<string, number>();
    const targets = new Map<string, Target | undefined>();

    const fail = async (record: SQSRecord, delayMs: number) => {
      // A hold SQS refuses leaves the message to the queue's visibility timeout: it must not fail the other groups' messages.
      await hold(record, delayMs).catch((error: unknown) => logger.warn('Storefront read not held back', { fault: (error as Error).name }));
      failures.add(record.messageId);
      failedGroups.set(record.attributes.MessageGroupId ?? record.messageId, delayMs);
    };

    const targetOf = async (uid: string): Promise<Target | undefined> => {
      if (targets.has(uid)) return targets.get(uid);
      const found = await findConnectionByUid(uid);
      const connection = found ? await getConnection(found.clientId, found.connector) : undefined;
      const lookup = found ? marketplaceFor(found.connector) : undefined;
      const target =
        found && connection && connection.record.uid === uid && connection.record.status !== 'unauthorized' && lookup?.kind === 'adapter'
          ? { clientId: found.clientId, stored: connection, port: lookup.port, storefrontUrl: lookup.storefrontUrl }
          : undefined;
      targets.set(uid, target);
      return target;
    };

    const read = async (record: SQSRecord, message: StoreFrontReadMessage): Promise<void> => {
      const target = await targetOf(message.uid);
      if (!target) return;
      const { connector, seller_id: sellerId } = target.stored.record;
      // The read's time on the reader's clock: what the market view records as read.
      const unseen = (reason: Parameters<typeof recordMarketUnseen>[3]) =>
        recordMarketUnseen(target.clientId, connector, message.code, reason, new Date(now()).toISOString());
      // Without the client's seller id a page cannot say which offer is the client's: not read at all.
      if (sellerId === null) return unseen('own_seller_unknown');
      const host = hostOf(target.storefrontUrl);
      const state = await hostState(host);
      if (now() < state.holdUntil) {
        await fail(record, state.holdUntil - now());
        return;
      }
      const wait = pace.book(host, now());
      if (wait > 0) await sleep(wait);
      let market: ProductMarket;
      try {
        market = await target.port.readProductMarket(message.productLineId);
      } catch (error) {
        if (error instanceof MarketplaceRateLimited) {
          state.refusals++;
          const backoff = Math.min(MARKET_SYNC.storefrontBackoffCapMs, MARKET_SYNC.storefrontBackoffMs * 2 ** (state.refusals - 1));
          state.holdUntil = now() + Math.min(MARKETPLACE_HOLD_MAX_MS, Math.max(error.retryAfterMs, backoff));
          await putHostHold(host, { holdUntil: state.holdUntil, refusals: state.refusals });
          logger.warn('Storefront refused a read: holding the host', { host, holdMs: state.holdUntil - now(), refusals: state.refusals });
          await unseen('blocked');
          await fail(record, state.holdUntil - now());
          return;
        }
        if (error instanceof MarketplaceUnavailable) {
          logger.warn('Storefront page not read; retried later', { fault: error.message });
          await fail(record, retryDelayMs(Number(record.attributes.ApproximateReceiveCount ?? '1')));
          return;
        }
        // Malformed, gone or refused as a request: nothing of it is written, and the market is unknown until the next page shows it.
        logger.warn('Storefront page skipped', { fault: (error as Error).name, reason: (error as Error).message });
        if (error instanceof MarketplaceMalformed) await unseen('malformed_page');
        if (error instanceof MarketplaceNotFound) await unseen('page_missing');
        return;
      }
      // The view's age as known here: how far behind the time it was asked for (`at`) the page was read.
      loopMetrics.marketViewAge(connector, (now() - Date.parse(message.at)) / 1000);
      const result = await applyProductMarket(
        target.clientId,
        { uid: connector, sellerId, storefrontUrl: target.storefrontUrl, resumedAt: target.stored.breakerClearedAt },
        message.code,
        market,
        new Date(now()).toISOString(),
      );
      if (result.kind === 'malformed') {
        logger.warn('Storefront page skipped: malformed', { problem: result.problem });
        await unseen('malformed_page');
      }
      if (result.kind === 'unseen') {
        const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
        const again = receiveCount <= MARKET_SYNC.emptyPageRereads;
        logger.warn('Storefront page showed no buy box: the market is unknown', { connector, productLineId: message.productLineId, readAgain: again });
        // Read again shortly (a blank is often passing), through the same pace and hold; a few blanks in a row, and it waits for its tier.
        if (again) await fail(record, MARKET_SYNC.emptyPageRereadMs * 2 ** (receiveCount - 1));
      }
      if (result.kind === 'unknown') {
        // Not passing: the page shows the variant it shows, so it waits for its tier.
        logger.info('Storefront page not priced from: the market is unknown', { connector, productLineId: message.productLineId, reason: result.reason });
      }
      if ((result.kind === 'applied' || result.kind === 'unknown') && result.skipped > 0) await countSkippedEntries(target.clientId, connector, result.skipped);
    };

    for (const record of event.Records) {
      const parsed = parseMessageBody(storefrontReadMessage, record.body);
      if (!parsed.success) {
        logger.error('Storefront read message refused', { messageId: record.messageId });
        continue;
      }
      const group = record.attributes.MessageGroupId ?? record.messageId;
      const left = context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
      const groupHeld = failedGroups.get(group);
      if (groupHeld !== undefined || left < RESERVE_MS) {
        await fail(record, groupHeld ?? 0);
        continue;
      }
      try {
        await read(record, parsed.data);
      } catch (error) {
        // The table failed: this read is retried; the batch's other groups go on.
        logger.error('Storefront page not applied', { error: (error as Error).message });
        await fail(record, retryDelayMs(Number(record.attributes.ApproximateReceiveCount ?? '1')));
      }
    }
    return fifoBatchResponse(event, failures);
  };
};
