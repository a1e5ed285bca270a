/**
 * Paging of `GET /offers`: `limit` (default 100, max 1000) and an opaque `continuation_token`
 * that carries the next offset and page number. The page-2 bug (a fault switch) answers the
 * second page without a token although more offers exist, as reported of the real API.
 */
import { HttpError } from './http.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1_000;

interface Cursor {
  offset: number;
  page: number;
}

export const encodeToken = (cursor: Cursor): string => Buffer.from(JSON.stringify({ o: cursor.offset, p: cursor.page })).toString('base64url');

export const decodeToken = (token: string): Cursor => {
  try {
    const raw = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown; p?: unknown };
    if (Number.isInteger(raw.o) && Number.isInteger(raw.p) && (raw.o as number) >= 0 && (raw.p as number) >= 2)
      return { offset: raw.o as number, page: raw.p as number };
  } catch {
    // fall through to the 400 below
  }
  throw new HttpError(400, 'invalid continuation_token');
};

export const parseLimit = (raw: string | null): number => {
  if (raw === null) return DEFAULT_LIMIT;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_LIMIT) throw new HttpError(400, `limit must be a whole number from 1 to ${MAX_LIMIT}`);
  return limit;
};

export interface Page<T> {
  items: T[];
  continuation_token: string | null;
  count?: number;
  limit: number;
}

export const pageOf = <T>(all: readonly T[], params: URLSearchParams, page2Bug: boolean): Page<T> => {
  const limit = parseLimit(params.get('limit'));
  const token = params.get('continuation_token');
  const cursor = token === null || token === '' ? { offset: 0, page: 1 } : decodeToken(token);
  const items = all.slice(cursor.offset, cursor.offset + limit);
  const nextOffset = cursor.offset + items.length;
  const more = nextOffset < all.length;
  const dropToken = page2Bug && cursor.page === 2;
  return {
    items,
    continuation_token: more && !dropToken ? encodeToken({ offset: nextOffset, page: cursor.page + 1 }) : null,
    ...(params.get('include_count') === 'true' ? { count: all.length } : {}),
    limit,
  };
};
