/**
 * Polling `GET /v1/price-changes?updated_since=` (lambdas/domain/price-change-feed.ts): a page
 * serves only the changes updated at least this long ago. A change is stamped with its time
 * before its write lands (a worker's write may take seconds, with retries), and the feed's
 * index is eventually consistent: a change stamped earlier than one a poller has already read
 * could still appear behind its cursor. Held back this long, it cannot, so a poller that goes on
 * from its cursor misses none. The local test API names a shorter one (its writes land at once).
 */
export const PRICE_CHANGE_FEED_SETTLE_MS_ENV = 'PRICE_CHANGE_FEED_SETTLE_MS';
export const DEFAULT_FEED_SETTLE_MS = 30_000;

export const priceChangeFeedSettleMs = (): number => {
  const named = Number(process.env[PRICE_CHANGE_FEED_SETTLE_MS_ENV]);
  return process.env[PRICE_CHANGE_FEED_SETTLE_MS_ENV] !== undefined && Number.isInteger(named) && named >= 0 ? named : DEFAULT_FEED_SETTLE_MS;
};
