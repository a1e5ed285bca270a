/**
 * The longest the service waits on a marketplace's word (docs/price-sending.md, "One seller-API
 * hold per connection"; docs/market-sync.md): a `Retry-After` or `x-RateLimit-Reset` asking for
 * more is waited for this long, then the next call is a fresh try (a marketplace that still
 * refuses sets a new hold). A misread reset (an epoch taken as seconds is a 56-year hold) or a
 * marketplace asking for hours can then never stop a connection's sending or a host's reads for
 * longer than this.
 */
export const MARKETPLACE_HOLD_MAX_MS = 15 * 60_000;

/**
 * A stored hold that ends further than this from now was not set under the cap (an older
 * version's, or a clock gone wrong): it is not obeyed, the next call is a fresh try. The margin
 * over the cap covers clocks of different functions a little apart.
 */
export const STORED_HOLD_MAX_MS = MARKETPLACE_HOLD_MAX_MS + 60_000;

/** A wait the marketplace asked for, bounded: never negative, never longer than the cap. */
export const boundedHoldMs = (ms: number): number =>
  Number.isFinite(ms) ? Math.min(MARKETPLACE_HOLD_MAX_MS, Math.max(0, Math.ceil(ms))) : MARKETPLACE_HOLD_MAX_MS;
