import type * as z from 'zod';
import { MarketplaceMalformed, MarketplaceNotFound, MarketplaceRejected, MarketplaceUnauthorized, type MarketplacePort, type PriceUpdate } from '../port.js';
import { batchStatusBody } from './batch-status.js';
import { verifyTakealotEvent } from './events.js';
import { exchange } from './http.js';
import { productDetailsBody, productMarketOf } from './product-page.js';
import { batchCreatedBody, offersPageBody, ownOfferBody } from './schemas.js';

/**
 * The Takealot adapter: the Marketplace API v1 for the seller's own offers and price batches,
 * the public storefront's product-details page for the market (docs/takealot.md sections 1-3).
 * The only code that knows Takealot's URLs, headers and payloads.
 */
export interface TakealotOptions {
  /** The seller API v1 base, e.g. `https://marketplace-api.takealot.com/v1` (no trailing slash needed). */
  readonly sellerApiUrl: string;
  /** The storefront API's origin, e.g. `https://api.takealot.com` (the adapter appends `/rest/...`). */
  readonly storefrontUrl: string;
  /** Per request. */
  readonly timeoutMs?: number;
  /** Offers per `GET /offers` page (reported: default 100, max 1000). */
  readonly pageSize?: number;
  /** The storefront API's minor version in `v-1-<minor>-0` (reported: 8-19 seen). */
  readonly storefrontMinor?: number;
  readonly fetch?: typeof fetch;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1_000;
export const DEFAULT_STOREFRONT_MINOR = 10;
/** Well under the v2 limit of 10,000 (the only published one): one request stays small. */
export const MAX_BATCH_UPDATES = 1_000;
const EXPANDS = 'seller_warehouse_stock,takealot_warehouse_stock';

const trimSlash = (url: string) => url.replace(/\/+$/, '');

const mapped = <S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> => {
  const parsed = schema.safeParse(body);
  // The issues are not echoed: a response may hold seller data, and the shape is what matters.
  if (!parsed.success) throw new MarketplaceMalformed(`Takealot ${what} does not have the documented shape`);
  return parsed.data;
};

const wholeRandOnly = (updates: readonly PriceUpdate[]): void => {
  if (updates.length === 0 || updates.length > MAX_BATCH_UPDATES) throw new MarketplaceRejected(`A batch holds 1 to ${MAX_BATCH_UPDATES} price updates`);
  for (const update of updates) {
    if (!Number.isSafeInteger(update.sellingPrice) || update.sellingPrice < 0) throw new MarketplaceRejected('selling price must be a whole number >= 0');
  }
};

/** Offer ids are numbers on Takealot: sent as numbers when they look like one. */
const offerIdValue = (offerId: string): number | string => (/^[1-9]\d{0,14}$/.test(offerId) ? Number(offerId) : offerId);

export const createTakealotAdapter = (options: TakealotOptions): MarketplacePort => {
  const seller = trimSlash(options.sellerApiUrl);
  const storefront = trimSlash(options.storefrontUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, options.pageSize ?? DEFAULT_PAGE_SIZE));
  const minor = options.storefrontMinor ?? DEFAULT_STOREFRONT_MINOR;
  const base = { timeoutMs, ...(options.fetch ? { fetch: options.fetch } : {}) };

  const sellerCall = (apiKey: string, path: string, init: RequestInit = {}): Promise<unknown> =>
    exchange(
      `${seller}${path}`,
      { ...init, headers: { accept: 'application/json', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), 'X-API-Key': apiKey } },
      { ...base, surface: 'seller', redact: apiKey },
    );

  const offersPath = (limit: number, next?: string): string => {
    const query = new URLSearchParams({ limit: String(limit), include_count: 'true', expands: EXPANDS });
    if (next !== undefined) query.set('continuation_token', next);
    return `/offers?${query.toString()}`;
  };

  return {
    async checkKey(apiKey) {
      try {
        await sellerCall(apiKey, offersPath(1));
        return 'accepted';
      } catch (error) {
        if (error instanceof MarketplaceUnauthorized) return 'rejected';
        throw error;
      }
    },

    async listOwnOffers(apiKey, next) {
      return mapped(offersPageBody, await sellerCall(apiKey, offersPath(pageSize, next)), 'offers page');
    },

    async readOwnOffer(apiKey, offerId) {
      if (!/^[1-9]\d{0,14}$/.test(offerId)) return undefined;
      try {
        const query = new URLSearchParams({ expands: EXPANDS });
        return mapped(ownOfferBody, await sellerCall(apiKey, `/offers/${offerId}?${query.toString()}`), 'offer');
      } catch (error) {
        if (error instanceof MarketplaceNotFound) return undefined;
        throw error;
      }
    },

    async readProductMarket(productLineId) {
      if (!/^\d{1,15}$/.test(productLineId)) throw new MarketplaceRejected('A Takealot product line id is a number');
      const url = `${storefront}/rest/v-1-${minor}-0/product-details/PLID${productLineId}`;
      const body = mapped(
        productDetailsBody,
        await exchange(url, { headers: { accept: 'application/json' } }, { ...base, surface: 'storefront' }),
        'product page',
      );
      return productMarketOf(productLineId, body);
    },

    async sendPrices(apiKey, updates) {
      wholeRandOnly(updates);
      const offers = updates.map((update) => ({ offer_id: offerIdValue(update.offerId), selling_price: update.sellingPrice }));
      const body = mapped(batchCreatedBody, await sellerCall(apiKey, '/offers/batch', { method: 'POST', body: JSON.stringify({ offers }) }), 'batch answer');
      return { batchId: body.batch_id };
    },

    async readBatch(apiKey, batchId) {
      if (!/^[A-Za-z0-9_-]{1,100}$/.test(batchId)) throw new MarketplaceRejected('Not a Takealot batch id');
      const status = mapped(batchStatusBody, await sellerCall(apiKey, `/offers/batch/${batchId}`), 'batch status');
      return { ...status, batchId: status.batchId ?? batchId };
    },

    verifyEvent: verifyTakealotEvent,
  };
};
