import * as z from 'zod';
import { timestamp } from './records.js';

/**
 * What the service knows of a product's market on one connector (docs/design.md, "The marketplace loop", "What the
 * service did not see, it does not price"). A market is `known` from the moment a storefront
 * page that showed the product's buy box was read, and `unknown` before that and again after a
 * page that came back empty, blocked, missing or malformed, one that showed another variant of
 * the product line, one whose rivals could not be read, or while nobody has said which seller the
 * client is. "Alone" is a known market whose buy box listed no rival: never an
 * unknown one. Pure: the reader decides what to write from it, the evaluator and the preview
 * what they may decide.
 */
export const MARKET_UNKNOWN_REASONS = [
  'not_read',
  'empty_page',
  'malformed_page',
  'blocked',
  'page_missing',
  'own_seller_unknown',
  'variant_not_shown',
  'rivals_unreadable',
] as const;
export type MarketUnknownReason = (typeof MARKET_UNKNOWN_REASONS)[number];

export const marketState = z.discriminatedUnion('state', [
  /** `readAt`: the last read recorded (a read that changed nothing refreshes it only every heartbeat). */
  z.object({ state: z.literal('known'), readAt: timestamp }),
  z.object({ state: z.literal('unknown'), reason: z.enum(MARKET_UNKNOWN_REASONS), since: timestamp }),
]);
export type MarketState = z.infer<typeof marketState>;

/** Why nothing is decided now, in the words the preview and the logs use. */
export const MARKET_HOLD_TEXT: Readonly<Record<MarketUnknownReason | 'stale', string>> = {
  not_read: "The product's storefront page has not been read yet.",
  empty_page: "The product's last storefront page came back without a buy box (empty, or a soft block).",
  malformed_page: "The product's last storefront page did not have a readable structure.",
  blocked: "The storefront refused the product's last page read (rate limit or bot protection).",
  page_missing: "The storefront has no page for the product's line id.",
  own_seller_unknown: "The connection's seller_id is not known: the client's own offer cannot be told from rivals'.",
  variant_not_shown: "The product's storefront page showed another variant of its product line, or none: this product's own buy box has not been seen.",
  rivals_unreadable: "The product's last storefront page listed offers that could not be read, and no readable rival: no rival seen is not no rival.",
  stale: "The product's market was last read too long ago: nothing is decided, down or up, until a page is read again.",
};

export interface MarketTiming {
  /** A read that changed nothing is recorded at most this often. */
  readonly heartbeatMs: number;
  /** A known market last recorded longer ago than this (tier, heartbeat and a margin) decides nothing, down or up. */
  readonly staleAfterMs: number;
}

export type MarketVerdict =
  | { readonly decide: false; readonly why: MarketUnknownReason }
  /** Known, but read too long ago: a price moved on it, either way, would follow a market that may be gone. */
  | { readonly decide: false; readonly why: 'stale'; readonly readAt: string }
  | { readonly decide: true; readonly readAt: string };

/** What a repricer may decide from the market as recorded. No record: the page has not been read yet. */
export const marketVerdict = (market: MarketState | undefined, nowMs: number, timing: Pick<MarketTiming, 'staleAfterMs'>): MarketVerdict => {
  if (!market) return { decide: false, why: 'not_read' };
  if (market.state === 'unknown') return { decide: false, why: market.reason };
  if (nowMs - Date.parse(market.readAt) > timing.staleAfterMs) return { decide: false, why: 'stale', readAt: market.readAt };
  return { decide: true, readAt: market.readAt };
};

/**
 * The state a read leaves, or undefined when the stored one says the same and is recent enough:
 * a reader writes only a change of state or reason, a known market's heartbeat, and the first
 * read after a price the marketplace confirmed (a capped move's next step waits for that read).
 */
export const marketAfterRead = (
  before: MarketState | undefined,
  seen: { readonly state: 'known' } | { readonly state: 'unknown'; readonly reason: MarketUnknownReason },
  now: string,
  timing: Pick<MarketTiming, 'heartbeatMs'>,
  lastConfirmedAt?: string,
): MarketState | undefined => {
  if (seen.state === 'unknown') {
    if (before?.state === 'unknown' && before.reason === seen.reason) return undefined;
    return { state: 'unknown', reason: seen.reason, since: now };
  }
  if (before?.state === 'known') {
    const recent = Date.parse(now) - Date.parse(before.readAt) < timing.heartbeatMs;
    const confirmedSince = lastConfirmedAt !== undefined && lastConfirmedAt >= before.readAt;
    if (recent && !confirmedSince) return undefined;
  }
  return { state: 'known', readAt: now };
};
