import { MARKET_SYNC } from '../../config/market-sync.js';
import { applyOwnOffers, markGoneOwnOffers, markOwnOffersGone, ownOffersNotSeen, type SyncConnector, type WriteCounts } from '../../market/market-sync.js';
import type { StoredOffer } from '../../data/offers/list.js';
import { logger } from '../../observability/logger.js';
import { MarketplaceMalformed, type MarketplacePort, type OwnOfferSnapshot } from '../../marketplace/port.js';
import { withMarketplaceRetries, type RetryOptions } from '../../marketplace/retrying.js';
import { nowIso } from '../../config/clock.js';

/**
 * A full own-offer sync: every page of the seller API's offer list, applied page by page
 * (writing only what changed), then, when the list was complete, the own offers it no longer
 * shows marked not buyable. Complete means the marketplace's `count` was reached: the reported
 * page-2 bug ends a list early without a token, so a page that ends short is asked again, and a
 * list that still ends short is applied as far as it went and marks nothing gone.
 */
export interface OwnOffersSync {
  /** Every page read and the count reached. */
  readonly complete: boolean;
  readonly offersSeen: number;
  readonly count: number | undefined;
  readonly pages: number;
  /** Items the sync created or updated (products, offers, offers marked gone). */
  readonly written: number;
  /** List items left out: unreadable to the adapter (no offer id, SKU or price) or unstorable here. */
  readonly skipped: number;
  /** Why the sync is incomplete, for the connection's `last_error` (never a key, never marketplace data). */
  readonly problem?: string;
}

/** A list this long is not a list: a token that loops would otherwise keep the sync busy forever. */
const MAX_PAGES = 1_000;

const writes = (counts: WriteCounts) => counts.created + counts.updated;

export const syncOwnOffers = async (
  port: MarketplacePort,
  apiKey: string,
  clientId: string,
  connector: SyncConnector,
  options: { readonly now?: string; readonly retry?: Partial<RetryOptions> } = {},
): Promise<OwnOffersSync> => {
  const now = options.now ?? nowIso();
  const seen = new Set<string>();
  let token: string | undefined;
  let count: number | undefined;
  let pages = 0;
  let written = 0;
  let skipped = 0;
  let shortRetries = 0;
  let problem: string | undefined;
  while (pages < MAX_PAGES) {
    let page;
    try {
      page = await withMarketplaceRetries(() => port.listOwnOffers(apiKey, token), options.retry);
    } catch (error) {
      if (!(error instanceof MarketplaceMalformed)) throw error;
      logger.warn('Own-offer page skipped: malformed', { connector: connector.uid, page: pages + 1 });
      problem = `The marketplace's offer list page ${pages + 1} did not have the documented shape; the sync stopped there.`;
      break;
    }
    pages++;
    count = page.count ?? count;
    const applied = await applyOwnOffers(clientId, connector, page.offers, now);
    written += writes(applied.products) + writes(applied.offers);
    skipped += applied.skipped + page.skipped;
    if (applied.skipped > 0) logger.warn('Own offers skipped', { connector: connector.uid, skipped: applied.skipped, problems: applied.problems });
    for (const offer of page.offers) seen.add(offer.offerId);
    if (page.next !== undefined) {
      token = page.next;
      shortRetries = 0;
      continue;
    }
    if (count !== undefined && seen.size < count && shortRetries < MARKET_SYNC.shortPageRetries) {
      // Ended early: the same request again (the token that led here is still `token`).
      shortRetries++;
      continue;
    }
    break;
  }
  const complete = problem === undefined && count !== undefined && seen.size >= count;
  if (complete) {
    written += writes(await markGoneOwnOffers(clientId, connector, seen, now));
  } else {
    const unlisted = await readUnlisted(port, apiKey, clientId, connector, seen, now, options.retry);
    written += unlisted.written;
    problem ??=
      count === undefined
        ? 'The marketplace gave no offer count; offers it stopped showing are not marked gone.'
        : `The marketplace's offer list ended at ${seen.size} of ${count} offers; ${unlisted.read} of the ${unlisted.of} it did not show were read one by one.`;
  }
  return { complete, offersSeen: seen.size, count, pages, written, skipped, ...(problem === undefined ? {} : { problem }) };
};

/**
 * The share of the own offers an incomplete list did not show that this sync reads one by one:
 * sorted by id and taken in turns by the sync's period, so every one comes round within
 * ceil(unlisted / unlistedReadsPerSync) syncs. An offer the marketplace answers 404 for is gone.
 */
const readUnlisted = async (
  port: MarketplacePort,
  apiKey: string,
  clientId: string,
  connector: SyncConnector,
  seen: ReadonlySet<string>,
  now: string,
  retry: Partial<RetryOptions> | undefined,
): Promise<{ read: number; of: number; written: number }> => {
  const unlisted = (await ownOffersNotSeen(clientId, connector, seen)).sort((a, b) => (a.fields.offer_id < b.fields.offer_id ? -1 : 1));
  const per = MARKET_SYNC.unlistedReadsPerSync;
  const turns = Math.max(1, Math.ceil(unlisted.length / per));
  const turn = Math.floor(Date.parse(now) / (MARKET_SYNC.ownOffersEverySeconds * 1000)) % turns;
  const share = unlisted.slice(turn * per, turn * per + per);
  const found: OwnOfferSnapshot[] = [];
  const gone: StoredOffer[] = [];
  for (const offer of share) {
    const snapshot = await withMarketplaceRetries(() => port.readOwnOffer(apiKey, offer.fields.offer_id), retry);
    if (snapshot) found.push(snapshot);
    else gone.push(offer);
  }
  const applied = await applyOwnOffers(clientId, connector, found, now);
  const marked = await markOwnOffersGone(clientId, connector, gone, now);
  return { read: share.length, of: unlisted.length, written: writes(applied.products) + writes(applied.offers) + writes(marked) };
};
