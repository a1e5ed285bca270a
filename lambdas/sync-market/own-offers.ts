import { MARKET_SYNC } from '../shared/config/market-sync.js';
import { applyOwnOffers, markGoneOwnOffers, type SyncConnector, type WriteCounts } from '../shared/data/market-sync.js';
import { logger } from '../shared/logger.js';
import { MarketplaceMalformed, type MarketplacePort } from '../shared/marketplace/port.js';
import { withMarketplaceRetries, type RetryOptions } from '../shared/marketplace/retrying.js';

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
  const now = options.now ?? new Date().toISOString();
  const seen = new Set<string>();
  let token: string | undefined;
  let count: number | undefined;
  let pages = 0;
  let written = 0;
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
  if (complete) written += writes(await markGoneOwnOffers(clientId, connector, seen, now));
  else
    problem ??=
      count === undefined
        ? 'The marketplace gave no offer count; offers it stopped showing are not marked gone.'
        : `The marketplace's offer list ended at ${seen.size} of ${count} offers; the rest are kept as they were.`;
  return { complete, offersSeen: seen.size, count, pages, written, ...(problem === undefined ? {} : { problem }) };
};
