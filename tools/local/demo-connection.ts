/**
 * `npm start`'s market steps, done as a seller's system does them, through the local API:
 * connect the demo client to the marketplace (`PUT /v1/connections/takealot`, live mode), point
 * the marketplace's webhooks at the connection's route, and wait for the first sync's offers.
 */
import { DEMO_MARKET_CONNECTOR, readControlState, type MarketControlState } from './demo-market.js';

export type Credentials = readonly [username: string, password: string];

/** The connection record as the API answers it (the fields the start sequence reads). */
export interface DemoConnection {
  readonly uid: string;
  readonly mode: string;
  readonly status: string;
  readonly key_last4: string;
}

const REQUEST_TIMEOUT_MS = 10_000;

const basic = ([username, password]: Credentials) => `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

const call = async (apiUrl: string, auth: Credentials, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { Authorization: basic(auth), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the error message.
  }
  return { status: response.status, body: parsed };
};

/** A problem's detail (never a secret: the API does not echo the key), for an error message. */
const detailOf = (body: unknown): string =>
  typeof body === 'object' && body !== null && 'detail' in body ? String((body as { detail: unknown }).detail) : JSON.stringify(body).slice(0, 200);

/**
 * The base URL the simulator may send webhooks to: the API on a loopback address. The simulator
 * sends only to 127.0.0.1 and [::1], so an API listening elsewhere gets no webhooks (the syncs
 * still bring every change, a little later).
 */
export const loopbackApiUrl = (host: string, port: number): string | undefined => {
  if (host === '127.0.0.1' || host === '0.0.0.0') return `http://127.0.0.1:${port}`;
  if (host === '::1' || host === '::') return `http://[::1]:${port}`;
  return undefined;
};

/** The public route the marketplace posts a connection's events to (docs/connections.md). */
export const marketplaceEventsUrl = (apiUrl: string, uid: string): string => `${apiUrl}/v1/marketplace-events/${encodeURIComponent(uid)}`;

export interface ConnectInput {
  /** Where the API answers, e.g. http://127.0.0.1:3000. */
  readonly apiUrl: string;
  readonly auth: Credentials;
  /** The seller's key and webhook secret on the marketplace (the simulator's). */
  readonly apiKey: string;
  readonly webhookSecret: string;
  /** The seller's id on the marketplace, as the client states it (how its own offer is told from rivals'). */
  readonly sellerId: string;
  /** Points the marketplace's webhooks at a URL (the simulator's `setWebhookUrl`); absent: none are set. */
  readonly setWebhookUrl?: (url: string) => void;
  /** The API's loopback base URL for the webhooks; absent: no webhooks (see `loopbackApiUrl`). */
  readonly webhookApiUrl?: string;
}

export interface Connected {
  readonly connection: DemoConnection;
  /** Where the marketplace's webhooks now go; undefined when none were set. */
  readonly webhookUrl: string | undefined;
}

/**
 * Connects the client in `live` mode (a second start replaces its key and keeps its uid), then
 * registers the connection's events URL with the marketplace, as a seller does in its portal.
 */
export const connectDemoClient = async (input: ConnectInput): Promise<Connected> => {
  const put = await call(input.apiUrl, input.auth, 'PUT', `/v1/connections/${DEMO_MARKET_CONNECTOR}`, {
    api_key: input.apiKey,
    webhook_secret: input.webhookSecret,
    mode: 'live',
    seller_id: input.sellerId,
  });
  if (put.status !== 200 && put.status !== 201) throw new Error(`PUT /v1/connections/${DEMO_MARKET_CONNECTOR} answered ${put.status}: ${detailOf(put.body)}`);
  const connection = put.body as DemoConnection;
  if (input.setWebhookUrl === undefined || input.webhookApiUrl === undefined) return { connection, webhookUrl: undefined };
  const webhookUrl = marketplaceEventsUrl(input.webhookApiUrl, connection.uid);
  input.setWebhookUrl(webhookUrl);
  return { connection, webhookUrl };
};

interface OfferPage {
  readonly meta: { readonly total: number };
  readonly offers: readonly { readonly product: { readonly code: string } }[];
}

const PAGE_SIZE = 100;
/** Pages read per look: the demo catalogue and a simulator of a few hundred products fit many times over. */
const MAX_PAGES = 50;

/** The product codes of the client's own offers that are among `codes`. */
export const ownOfferCodes = async (apiUrl: string, auth: Credentials, codes: ReadonlySet<string>): Promise<Set<string>> => {
  const found = new Set<string>();
  for (let page = 0; page < MAX_PAGES; page++) {
    const response = await call(apiUrl, auth, 'GET', `/v1/offers?_limit=${PAGE_SIZE}&_start=${page * PAGE_SIZE}`);
    if (response.status !== 200) throw new Error(`GET /v1/offers answered ${response.status}: ${detailOf(response.body)}`);
    const { meta, offers } = response.body as OfferPage;
    for (const { product } of offers) if (codes.has(product.code)) found.add(product.code);
    if ((page + 1) * PAGE_SIZE >= meta.total || offers.length === 0) break;
  }
  return found;
};

export interface WaitForSyncInput {
  readonly apiUrl: string;
  readonly auth: Credentials;
  /** The marketplace's SKUs: the product codes its own offers are synced under. */
  readonly codes: ReadonlySet<string>;
  readonly timeoutMs: number;
  readonly intervalMs: number;
  readonly onProgress?: (found: number, expected: number, elapsedMs: number) => void;
}

/**
 * Polls the client's offers until the first sync has brought the marketplace's own offers in:
 * all of them, or some and no more since the last look (the sync is done). Bounded by
 * `timeoutMs`: resolves with what was found by then, maybe nothing.
 */
export const waitForSyncedOffers = async (input: WaitForSyncInput): Promise<Set<string>> => {
  const started = Date.now();
  let previous = -1;
  for (;;) {
    const found = await ownOfferCodes(input.apiUrl, input.auth, input.codes);
    const elapsed = Date.now() - started;
    input.onProgress?.(found.size, input.codes.size, elapsed);
    if (found.size === input.codes.size || (found.size > 0 && found.size === previous)) return found;
    if (elapsed + input.intervalMs > input.timeoutMs) return found;
    previous = found.size;
    await new Promise((resolve) => setTimeout(resolve, input.intervalMs));
  }
};

/** The simulator's market now (`GET /_control/state` on its base URL); undefined when the marketplace has no such route. */
export const readMarketState = async (marketUrl: string): Promise<MarketControlState | undefined> => {
  try {
    const response = await fetch(`${marketUrl}/_control/state`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return response.ok ? readControlState(await response.json()) : undefined;
  } catch {
    return undefined;
  }
};
