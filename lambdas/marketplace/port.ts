import { boundedHoldMs } from '../config/marketplace-holds.js';
import type { ProductMarket } from '../domain/storefront-page.js';

/**
 * The marketplace port: what the rest of the service asks of a marketplace. Each marketplace is
 * one adapter behind it (lambdas/marketplace/<name>/), the only code that knows its URLs,
 * headers and payloads; connections, syncs and the price sender speak only these types.
 * Money here is whole units of the marketplace's currency as it states them (Takealot: rand).
 */

/** A seller's own offer as the seller API reports it. */
export interface OwnOfferSnapshot {
  readonly offerId: string;
  /** The seller's SKU: the service's product code. */
  readonly sku: string;
  readonly barcode?: string;
  readonly title: string;
  /** The marketplace's product line id (Takealot PLID), the key of its storefront page. */
  readonly productLineId?: string;
  /**
   * The variant of the product line the offer sells (Takealot's `tsin_id`: one colour or size):
   * a product page's buy box belongs to one variant, never to the line as a whole.
   */
  readonly variantId?: string;
  readonly sellingPrice: number;
  readonly rrp?: number;
  /** Marketplace status, e.g. `buyable`, `not_buyable`, `disabled_by_seller`. */
  readonly status: string;
  readonly leadtimeDays?: number;
  /** Units on hand (seller and marketplace warehouses together). */
  readonly stockOnHand: number;
  /**
   * Held at the marketplace's own warehouses, so it ships now: what the storefront calls in
   * stock (Takealot). Stock in the seller's warehouse only is a leadtime offer. When a
   * marketplace does not say, any stock on hand counts.
   */
  readonly shipsNow?: boolean;
}

export interface OwnOffersPage {
  readonly offers: readonly OwnOfferSnapshot[];
  /** Pass back to get the next page; absent on the last page (or where the marketplace lost it: compare `count`). */
  readonly next?: string;
  /** The total the marketplace reports, when it does. */
  readonly count?: number;
  /**
   * List items left out because they could not be read as an offer (not an object, or without a
   * usable id, SKU, price, status or title). One bad item never rejects the page: the others are
   * here, and a page with skipped items is not the whole list.
   */
  readonly skipped: number;
}

export { MARKETPLACE_ITSELF_SELLER_ID, type MarketOffer, type ProductMarket } from '../domain/storefront-page.js';

export interface PriceUpdate {
  readonly offerId: string;
  readonly sellingPrice: number;
}

export interface BatchStatus {
  readonly batchId: string;
  readonly state: 'pending' | 'succeeded' | 'failed';
  /** Per offer, where the marketplace reports it: its message when refused. */
  readonly results: readonly { readonly offerId: string; readonly ok: boolean; readonly message?: string }[];
}

/** A marketplace webhook, verified. */
export interface MarketplaceEvent {
  readonly deliveryId: string;
  readonly type: 'offer_updated' | 'offer_created' | 'batch_completed' | 'other';
  readonly offerId?: string;
  readonly batchId?: string;
  /** The seller the event is about, normalized as MarketOffer.sellerId is, when the marketplace names one. */
  readonly sellerId?: string;
  /** What an Offer Updated event says changed (e.g. `selling_price: { old, new }`), as the marketplace sent it. */
  readonly valuesChanged?: Readonly<Record<string, unknown>>;
}

export interface MarketplacePort {
  /** Whether the key is accepted (a cheap authenticated read). Throws only for faults, not for a rejected key. */
  checkKey(apiKey: string): Promise<'accepted' | 'rejected'>;
  listOwnOffers(apiKey: string, next?: string): Promise<OwnOffersPage>;
  /** One own offer by the marketplace's id; undefined when the marketplace has none by it. */
  readOwnOffer(apiKey: string, offerId: string): Promise<OwnOfferSnapshot | undefined>;
  readProductMarket(productLineId: string): Promise<ProductMarket>;
  sendPrices(apiKey: string, updates: readonly PriceUpdate[]): Promise<{ readonly batchId: string }>;
  readBatch(apiKey: string, batchId: string): Promise<BatchStatus>;
  /** The event when its signature holds, else undefined (never throws on bad input). */
  verifyEvent(
    secret: string,
    request: { readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly body: string },
  ): MarketplaceEvent | undefined;
}

/** The key was refused (revoked or wrong): the connection becomes `unauthorized`. */
export class MarketplaceUnauthorized extends Error {
  override readonly name = 'MarketplaceUnauthorized';
}

/** The marketplace asked to slow down (429, or 403 from the storefront's bot protection). */
export class MarketplaceRateLimited extends Error {
  override readonly name = 'MarketplaceRateLimited';
  /** Bounded by the hold cap here, so every hold made from it (the seller API's, a host's, a 503's `Retry-After`) is too. */
  readonly retryAfterMs: number;
  constructor(retryAfterMs: number) {
    const bounded = boundedHoldMs(retryAfterMs);
    super(`rate limited; retry after ${bounded} ms`);
    this.retryAfterMs = bounded;
  }
}

/** A 5xx, a timeout or a refused connection: retried with backoff, nothing already held is lost. */
export class MarketplaceUnavailable extends Error {
  override readonly name = 'MarketplaceUnavailable';
  /** The status when the marketplace answered (a 5xx); absent for a timeout or a connection that failed. */
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** A response that does not have the documented shape: logged (without the key) and skipped. */
export class MarketplaceMalformed extends Error {
  override readonly name = 'MarketplaceMalformed';
}

/** The marketplace has nothing at the address asked (404): an offer or a product page that is gone. */
export class MarketplaceNotFound extends Error {
  override readonly name = 'MarketplaceNotFound';
}

/** The marketplace refused an update for a reason of the request (a validation error): `failed` at once with its message. */
export class MarketplaceRejected extends Error {
  override readonly name = 'MarketplaceRejected';
}
