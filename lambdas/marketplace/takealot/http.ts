import { boundedHoldMs } from '../../config/marketplace-holds.js';
import { toStorableText } from '../../domain/text.js';
import { loopMetrics, statusClassOf } from '../../observability/loop-metrics.js';
import {
  MarketplaceMalformed,
  MarketplaceNotFound,
  MarketplaceRateLimited,
  MarketplaceRejected,
  MarketplaceUnauthorized,
  MarketplaceUnavailable,
} from '../port.js';
import { TAKEALOT_CONNECTOR_UID } from './connector.js';
import { now as clockNow } from '../../config/clock.js';

/**
 * One HTTP exchange with Takealot, its outcome mapped to the port's faults. The only place the
 * adapter calls `fetch`: every request has its own timeout, and no error message built here
 * holds a header (so never the API key); the URLs it names hold no secret either.
 */
export type Surface = 'seller' | 'storefront';

export interface ExchangeOptions {
  readonly surface: Surface;
  readonly timeoutMs: number;
  /** Injected in tests; Node's fetch otherwise. */
  readonly fetch?: typeof fetch;
  /** The API key: cut out of any message the marketplace sends back, should it ever echo it. */
  readonly redact?: string;
}

/** When the marketplace asks to slow down without saying for how long. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;
/** A marketplace message kept in an error (and later in a stored `last_error`): storable text, bounded. */
const MAX_MESSAGE_LENGTH = 500;

/** Above this, a number is an epoch, not a delta: 10^9 seconds is 2001 as an epoch and 31 years as a delta. */
const EPOCH_SECONDS_FROM = 1e9;
/** Above this, an epoch is in milliseconds (10^12 ms is 2001; 10^12 s is past the year 30000). */
const EPOCH_MILLISECONDS_FROM = 1e12;

/** `Retry-After`: delta seconds or an HTTP date; undefined when it is neither. */
const retryAfterHeaderMs = (raw: string, now: number): number | undefined => {
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw) * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : date - now;
};

/**
 * `x-RateLimit-Reset`: reported both as the seconds until the window resets and as the moment it
 * resets (an epoch, in seconds or in milliseconds); told apart by size. Undefined when not a number.
 */
const rateLimitResetMs = (raw: string, now: number): number | undefined => {
  if (!/^\d+(\.\d+)?$/.test(raw)) return undefined;
  const value = Number(raw);
  if (value >= EPOCH_MILLISECONDS_FROM) return value - now;
  if (value >= EPOCH_SECONDS_FROM) return value * 1000 - now;
  return value * 1000;
};

/**
 * How long the marketplace asked to be left alone: `Retry-After` (seconds or an HTTP date), else
 * the seller API's `x-RateLimit-Reset` (a delta or an epoch), else 1 s; always within the hold
 * cap (config/marketplace-holds.ts), so no header, misread or not, holds anything for longer.
 */
export const retryAfterMs = (headers: Headers, now = clockNow()): number => {
  const retryAfter = headers.get('retry-after');
  const reset = headers.get('x-ratelimit-reset');
  const ms =
    (retryAfter === null ? undefined : retryAfterHeaderMs(retryAfter.trim(), now)) ??
    (reset === null ? undefined : rateLimitResetMs(reset.trim(), now)) ??
    DEFAULT_RETRY_AFTER_MS;
  return boundedHoldMs(ms);
};

/** The marketplace's `{ message }` (v1 and v2 both use it), else a generic line with the status. */
const messageOf = (body: unknown, status: number, redact: string | undefined): string => {
  const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
  const text = typeof message === 'string' && message.trim() !== '' ? message : `HTTP ${status}`;
  const safe = redact !== undefined && redact !== '' ? text.split(redact).join('[key]') : text;
  return toStorableText(safe, MAX_MESSAGE_LENGTH);
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** The JSON body of a 2xx answer; throws the port's fault for anything else. */
export const exchange = async (url: string, init: RequestInit, options: ExchangeOptions): Promise<unknown> => {
  const doFetch = options.fetch ?? fetch;
  const where = options.surface === 'seller' ? 'seller API' : 'storefront';
  let response: Response;
  let text: string;
  try {
    response = await doFetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(options.timeoutMs) });
    text = await response.text();
  } catch (error) {
    // A refused connection, a reset, a DNS failure or the timeout: all "not reachable now".
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : 'not reachable';
    loopMetrics.marketplaceAnswer(TAKEALOT_CONNECTOR_UID, options.surface, (error as Error).name === 'TimeoutError' ? 'timeout' : 'unreachable');
    throw new MarketplaceUnavailable(`Takealot ${where} ${reason}`);
  }
  const body = parseJson(text);
  const { status } = response;
  loopMetrics.marketplaceAnswer(TAKEALOT_CONNECTOR_UID, options.surface, statusClassOf(status));
  if (status >= 200 && status < 300) {
    if (body === undefined) throw new MarketplaceMalformed(`Takealot ${where} answered ${status} without a JSON body`);
    return body;
  }
  if (status === 429 || (status === 403 && options.surface === 'storefront')) throw new MarketplaceRateLimited(retryAfterMs(response.headers));
  if ((status === 401 || status === 403) && options.surface === 'seller')
    throw new MarketplaceUnauthorized(`Takealot seller API refused the key: ${messageOf(body, status, options.redact)}`);
  if (status >= 500) throw new MarketplaceUnavailable(`Takealot ${where} answered ${status}`, status);
  if (status === 404) throw new MarketplaceNotFound(`Takealot ${where}: ${messageOf(body, status, options.redact)}`);
  throw new MarketplaceRejected(messageOf(body, status, options.redact));
};
