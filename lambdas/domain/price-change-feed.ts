import { createHash } from 'node:crypto';
import * as z from 'zod';
import { DEFAULT_LIMIT, limitText } from './list-parameters.js';

/**
 * Polling price changes by update time (`GET /v1/price-changes?updated_since=...`, then
 * `?cursor=...`): pages in the order of each change's last update, oldest first, each page
 * going on after the last change the previous one gave. Unlike `_start` pages, a cursor names a
 * position in that order, not a count: changes that arrive or move meanwhile land after every
 * position already read, so a page read again is the same page and a poller that goes on from
 * its cursor sees each change once per update.
 */

/** Where the feed stands: the update time of the last change read and the data layer's key of it (which starts with that time). */
export interface FeedPosition {
  readonly updatedAt: string;
  readonly key: string;
}

export interface PriceChangeFeedQuery {
  /** Changes updated strictly after this time, or after this position. */
  readonly after: { readonly since: string } | { readonly position: FeedPosition };
  readonly limit: number;
  /** Changes updated after this are not served yet (lambdas/config/price-change-feed.ts). */
  readonly until: string;
}

const TIMESTAMP_MESSAGE = 'Must be an ISO 8601 date and time with at most millisecond precision, e.g. 2026-01-15T08:00:00.000Z.';
const MAX_CURSOR_LENGTH = 2048;

/** Whether a query asks for the feed rather than the `_start` pages. */
export const isFeedQuery = (params: Readonly<Record<string, string>>): boolean => 'updated_since' in params || 'cursor' in params;

export const priceChangeFeedParameters = z
  .strictObject({
    updated_since: z.iso
      .datetime({ offset: true, message: TIMESTAMP_MESSAGE })
      .refine((text) => !/\.\d{4,}/.test(text), TIMESTAMP_MESSAGE)
      .transform((text) => new Date(text).toISOString())
      .optional(),
    cursor: z.string().min(1).max(MAX_CURSOR_LENGTH).optional(),
    _limit: limitText.optional(),
  })
  .refine((params) => (params.updated_since === undefined) !== (params.cursor === undefined), {
    message: 'Give either updated_since (the first page) or cursor (the pages after it), not both.',
    path: ['cursor'],
  });

/** Binds a cursor to its client without naming the client: another client's cursor is refused. */
const tenantTag = (clientId: string) => createHash('sha256').update(`price-change-feed\u0000${clientId}`).digest('base64url').slice(0, 16);

const cursorBody = z.strictObject({
  v: z.literal(1),
  t: z.string(),
  u: z.iso.datetime({ precision: 3 }),
  k: z.string().min(1).max(MAX_CURSOR_LENGTH),
});

/** Opaque to the client: base64url of the version, the client's tag and the position. */
export const encodeFeedCursor = (clientId: string, position: FeedPosition): string =>
  Buffer.from(JSON.stringify({ v: 1, t: tenantTag(clientId), u: position.updatedAt, k: position.key }), 'utf8').toString('base64url');

/** The position a cursor names, or undefined when it is not one this service gave this client. */
export const decodeFeedCursor = (clientId: string, cursor: string): FeedPosition | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const body = cursorBody.safeParse(parsed);
  if (!body.success || body.data.t !== tenantTag(clientId) || !body.data.k.startsWith(`${body.data.u}#`)) return undefined;
  return { updatedAt: body.data.u, key: body.data.k };
};

/** A feed page's `meta`: no total or start, which a position does not have. */
export const priceChangeFeedMeta = z.strictObject({
  limit: z.number().int().describe('The page size used.'),
  next_cursor: z.string().describe('Where the next page starts: pass it as `cursor`. Given on every page, the last one too (poll it later).'),
  has_more: z.boolean().describe('More changes follow at once: ask for the next page now rather than later.'),
});

export type PlannedFeed = { readonly ok: true; readonly query: PriceChangeFeedQuery } | { readonly ok: false };

export const planPriceChangeFeed = (clientId: string, params: z.output<typeof priceChangeFeedParameters>, nowMs: number, settleMs: number): PlannedFeed => {
  const limit = params._limit ?? DEFAULT_LIMIT;
  const until = new Date(nowMs - settleMs).toISOString();
  if (params.updated_since !== undefined) return { ok: true, query: { after: { since: params.updated_since }, limit, until } };
  const position = decodeFeedCursor(clientId, params.cursor ?? '');
  return position ? { ok: true, query: { after: { position }, limit, until } } : { ok: false };
};
