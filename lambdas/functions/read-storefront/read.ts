import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { MARKET_SYNC } from '../../config/market-sync.js';
import { MARKETPLACE_HOLD_MAX_MS, STORED_HOLD_MAX_MS } from '../../config/marketplace-holds.js';
import { READ_PLANNER } from '../../config/read-planner.js';
import { countSkippedEntries, getConnection, type StoredConnection } from '../../data/connections/connections.js';
import { applyProductMarket, recordMarketUnseen } from '../../market/market-sync.js';
import { getHostHold, putHostHold } from '../../data/market/market-watch.js';
import { getPageWatch, recordPageLook, unwatchPage, type PageWatch } from '../../data/market/page-watches.js';
import { takeRead } from '../../data/market/read-budget.js';
import { marketPrint } from '../../domain/read-planner/market-print.js';
import { buyBoxContested } from '../../domain/read-planner/next-look.js';
import { storefrontReadMessage, type StoreFrontReadMessage } from '../../events/market-sync.js';
import { logger } from '../../observability/logger.js';
import { loopMetrics } from '../../observability/loop-metrics.js';
import { MarketplaceMalformed, MarketplaceNotFound, MarketplaceRateLimited, MarketplaceUnavailable, type ProductMarket } from '../../marketplace/port.js';
import { marketplaceFor } from '../../marketplace/registry.js';
import { fifoBatchResponse } from '../../queue/fifo-batch.js';
import { parseMessageBody } from '../../queue/message-body.js';
import { hostPace } from './pace.js';
import { now as clockNow } from '../../config/clock.js';

/** Holds a message back: SQS's ChangeMessageVisibility on AWS, the local queue's equivalent under `npm start`. */
export type HoldMessage = (record: SQSRecord, delayMs: number) => Promise<void>;

export interface StorefrontReaderOptions {
  /** Requests per second this reader sends to one host at most (its own pace, in memory); the stage's rate by default. */
  readonly requestsPerSecond?: number;
  /** Requests per second to one host, every reader together: the stored budget they share. */
  readonly stageRequestsPerSecond?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * The storefront reader: one look at one page for every tenant that watches it (the planner's
 * read, lambdas/read-planning/plan-reads.ts). It reads the page once, within the stage's budget
 * shared by every reader (data/market/read-budget.ts) and its own pace, and applies it to each
 * watching tenant's product (lambdas/market/market-sync.ts applyProductMarket): each tenant's view is
 * derived from the one page by its own seller id, and written under that tenant alone. Then it
 * records the look on the page's watch, which plans the next. A read that waited past its use, of
 * a page nobody watches, or made redundant by a later look, is dropped without a request.
 * What it could not see makes the market unknown for every watcher (an empty or malformed page, a
 * refusal, a missing page, a page of another variant of the product line, a page whose rivals
 * could not be read, or a connection whose seller id nobody has stated): their repricers then
 * decide nothing until a page shows the buy box again. A refused read (429, or the storefront's
 * 403) holds the host for its Retry-After (or a doubling backoff without one): the hold is stored,
 * so every reader waits it out, and the batch's remaining messages are held back as long. A page
 * that fails (5xx, timeout) is held back with a short backoff and read again; so is a page without
 * a buy box, a few times (`emptyPageRereads`). Messages of one page stay in order: after a failed
 * one, the later ones of its group are held back too.
 */
/** Below this much time left in the invocation, the batch's rest goes back to the queue untouched. */
const RESERVE_MS = 15_000;
/** Tenants a page is applied to at once. */
const TENANTS_AT_ONCE = 5;
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

/** A tenant watching the page, as this batch found it: its connection, and the products of it on the page. */
interface Watcher {
  readonly clientId: string;
  readonly stored: StoredConnection;
  readonly codes: string[];
}

/** A host's hold as this batch knows it: read from the table at the host's first read, raised by a refusal. */
interface HostState {
  holdUntil: number;
  refusals: number;
}

export const storefrontReader = (hold: HoldMessage, options: StorefrontReaderOptions = {}) => {
  const now = options.now ?? clockNow;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const stageRate = options.stageRequestsPerSecond ?? MARKET_SYNC.storefrontRequestsPerSecond;
  const pace = hostPace(1000 / (options.requestsPerSecond ?? stageRate));
  const planner = { ...READ_PLANNER, readsPerSecond: stageRate };

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
    const connections = new Map<string, StoredConnection | undefined>();

    const fail = async (record: SQSRecord, delayMs: number) => {
      // A hold SQS refuses leaves the message to the queue's visibility timeout: it must not fail the other groups' messages.
      await hold(record, delayMs).catch((error: unknown) => logger.warn('Storefront read not held back', { fault: (error as Error).name }));
      failures.add(record.messageId);
      failedGroups.set(record.attributes.MessageGroupId ?? record.messageId, delayMs);
    };

    const connectionOf = async (clientId: string, connector: string): Promise<StoredConnection | undefined> => {
      const key = `${clientId}|${connector}`;
      if (!connections.has(key)) connections.set(key, await getConnection(clientId, connector));
      return connections.get(key);
    };

    /**
     * The tenants the page is read for: each watcher whose connection is there and not refused.
     * A watcher whose connection was deleted leaves the page; one whose seller id nobody has
     * stated cannot tell its own offer from a rival's, so its market is unknown without a read.
     */
    const watchersOf = async (page: PageWatch, unseenAt: string): Promise<Watcher[]> => {
      const byTenant = new Map<string, Watcher>();
      for (const { clientId, code } of page.watchers) {
        const stored = await connectionOf(clientId, page.connector);
        if (!stored) {
          await unwatchPage(page, { clientId, code });
          continue;
        }
        if (stored.record.status === 'unauthorized') continue;
        if (stored.record.seller_id === null) {
          await recordMarketUnseen(clientId, page.connector, code, 'own_seller_unknown', unseenAt);
          continue;
        }
        const watcher = byTenant.get(clientId) ?? { clientId, stored, codes: [] };
        watcher.codes.push(code);
        byTenant.set(clientId, watcher);
      }
      return [...byTenant.values()];
    };

    const read = async (record: SQSRecord, message: StoreFrontReadMessage): Promise<void> => {
      const askedAt = Date.parse(message.at);
      // Waited past its use: a plan admits at most a minute of budget, so a read still queued a
      // minute after that is behind a backlog (readers held or slow); the page's lease (3 minutes)
      // brings it back to the planner, with whatever asks for it then.
      if (now() - askedAt > 2 * planner.maxQueueSeconds * 1000) return;
      const page = await getPageWatch(message.connector, message.productLineId);
      // Nobody watches it any more, or a look after this one was asked for has been made: no request.
      if (!page || page.watchers.length === 0) return;
      if (page.watch.lastLookAt !== null && page.watch.lastLookAt >= askedAt) return;
      const lookup = marketplaceFor(page.connector);
      if (lookup.kind !== 'adapter') return;
      const watchers = await watchersOf(page, new Date(now()).toISOString());
      if (watchers.length === 0) return;
      const unseen = async (reason: Parameters<typeof recordMarketUnseen>[3]) => {
        const at = new Date(now()).toISOString();
        for (const watcher of watchers) for (const code of watcher.codes) await recordMarketUnseen(watcher.clientId, page.connector, code, reason, at);
      };
      const host = hostOf(lookup.storefrontUrl);
      const state = await hostState(host);
      if (now() < state.holdUntil) {
        await fail(record, state.holdUntil - now());
        return;
      }
      const wait = pace.book(host, now());
      if (wait > 0) await sleep(wait);
      // The stage's budget, shared by every reader: a full second waits for the next.
      for (let taken = await takeRead(host, stageRate, now()); taken > 0; taken = await takeRead(host, stageRate, now())) await sleep(taken);
      let market: ProductMarket;
      try {
        market = await lookup.port.readProductMarket(page.productLineId);
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
        await recordPageLook(page.connector, page.productLineId, { at: now(), marketPrint: 'unread', contested: false }, planner);
        return;
      }
      // The view's age as known here: how far behind the time it was asked for (`at`) the page was read.
      loopMetrics.marketViewAge(page.connector, (now() - askedAt) / 1000);
      const readAt = new Date(now()).toISOString();
      let blank = false;
      // One page, every tenant's view of it: each finds its own offer by its own seller id. The
      // tenants' partitions are apart, so a few are written at once: a page sold by many costs
      // the reader about as long as a few.
      const applyFor = async (watcher: Watcher) => {
        const connector = {
          uid: page.connector,
          sellerId: watcher.stored.record.seller_id!,
          storefrontUrl: lookup.storefrontUrl,
          resumedAt: watcher.stored.breakerClearedAt,
        };
        let skipped = 0;
        for (const code of watcher.codes) {
          const result = await applyProductMarket(watcher.clientId, connector, code, market, readAt);
          if (result.kind === 'malformed') {
            logger.warn('Storefront page skipped: malformed', { problem: result.problem });
            await recordMarketUnseen(watcher.clientId, page.connector, code, 'malformed_page', readAt);
          }
          if (result.kind === 'unseen') blank = true;
          if (result.kind === 'unknown')
            // Not passing: the page shows the variant it shows, so it waits for its next look.
            logger.info('Storefront page not priced from: the market is unknown', {
              connector: page.connector,
              productLineId: page.productLineId,
              reason: result.reason,
            });
          if (result.kind === 'applied' || result.kind === 'unknown') skipped = Math.max(skipped, result.skipped);
        }
        if (skipped > 0) await countSkippedEntries(watcher.clientId, page.connector, skipped);
      };
      for (let n = 0; n < watchers.length; n += TENANTS_AT_ONCE) {
        // Every write of the round ends before a failure fails the read (to be read again: applying is idempotent).
        const failed = (await Promise.allSettled(watchers.slice(n, n + TENANTS_AT_ONCE).map(applyFor))).find((outcome) => outcome.status === 'rejected');
        if (failed) throw failed.reason;
      }
      if (blank) {
        const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
        const again = receiveCount <= MARKET_SYNC.emptyPageRereads;
        logger.warn('Storefront page showed no buy box: the market is unknown', {
          connector: page.connector,
          productLineId: page.productLineId,
          readAgain: again,
        });
        // Read again shortly (a blank is often passing), through the same pace and hold; a few blanks in a row, and it waits for its next look.
        if (again) {
          await fail(record, MARKET_SYNC.emptyPageRereadMs * 2 ** (receiveCount - 1));
          return;
        }
      }
      const repricing = new Set(page.watch.watchers.filter((w) => w.repriced).map((w) => w.tenant));
      const ownPrices = watchers
        .filter((watcher) => repricing.has(watcher.clientId))
        .flatMap((watcher) => market.offers.filter((offer) => offer.sellerId === watcher.stored.record.seller_id).map((offer) => offer.price));
      const winning = market.offers.find((offer) => offer.bestPrice)?.price ?? null;
      await recordPageLook(
        page.connector,
        page.productLineId,
        { at: now(), marketPrint: marketPrint(market), contested: buyBoxContested(ownPrices, winning, planner.contestedWithin) },
        planner,
      );
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
