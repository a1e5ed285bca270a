/**
 * The simulator's settings: defaults, and the checks that refuse a bad one at startup (before
 * anything listens). The simulator binds and sends only to loopback, so a webhook target or a
 * host anywhere else is refused here.
 */
import type { Clock } from './clock.js';
import type { FaultSettings } from './faults.js';
import { MarketOptionError } from './option-error.js';
import { checkShapes, DEFAULT_SHAPES, type ShapeSettings } from './shapes.js';

export { MarketOptionError } from './option-error.js';

export type SignatureScheme = 'hex-body' | 'base64-url-body';
export type ValuesChangedFormat = 'object' | 'string';

/** How `x-RateLimit-Reset` is written: the seconds until the bucket is full, or that moment as an epoch. */
export const RESET_FORMS = ['delta', 'epoch-seconds', 'epoch-milliseconds'] as const;
export type ResetForm = (typeof RESET_FORMS)[number];

export interface TokenBucketSettings {
  /** Requests admitted in a burst; also the `x-RateLimit-Limit` header. */
  capacity: number;
  /** Tokens added back per second. */
  refillPerSecond: number;
  /** The form of `x-RateLimit-Reset` (reported both ways); `delta` when not given. */
  resetForm?: ResetForm;
  /** Whether a 429 carries `Retry-After` (reported, not confirmed); true when not given. Without it a caller has only the reset header. */
  retryAfter?: boolean;
}

export interface WebhookSettings {
  /** Loopback URL the events go to; none: no webhooks are sent. */
  url: string | undefined;
  /** HMAC key; generated at startup when not given. */
  secret: string | undefined;
  signature: SignatureScheme;
  valuesChanged: ValuesChangedFormat;
  /** A delivery not answered with 2xx within this is a failure (Takealot's reported 5 s). */
  timeoutMs: number;
  /** Further attempts after a failed one. */
  retries: number;
  /** Delay before the first retry; doubled for each further one. */
  retryDelayMs: number;
}

export interface MarketOptions {
  host: '127.0.0.1' | '::1';
  /** 0: any free port. */
  port: number;
  seed: number;
  products: number;
  /** Competitor offers per product, beside the demo seller's own. */
  competitors: number;
  /**
   * Products come in families of this many identical copies (catalogue.ts, twinProducts) whose
   * bots draw the same moves: what sets the copies apart is only how each is repriced. 1: none.
   */
  twins: number;
  /** One more competitor on every product: a seller at the demo seller's start prices that never moves (catalogue.ts, staticSellerOffer). */
  staticSeller: boolean;
  /**
   * The most variants a product line holds: lines of 1, 2, ... this many variants in turn, each
   * variant its own tsin, own offer and buy box under the line's plid (catalogue.ts,
   * variantLines). 1: every line one variant.
   */
  variants: number;
  /**
   * Seller accounts, each its own API key and seller id (`sellerId`, then the next ids): the first
   * sells every product (the demo seller); the others each a seeded share of them, so their
   * catalogues overlap on shared product lines (catalogue.ts, accountOffers). 1: one seller.
   */
  sellers: number;
  /** The most accounts selling one product, with `sellers` above 1. */
  sellersPerProduct: number;
  /** Base path of the seller API (Takealot's is `/v1`). */
  basePath: string;
  sellerId: string;
  sellerName: string;
  /** The demo seller's key; generated when not given. */
  apiKey: string | undefined;
  /** Simulated time between bot ticks; 0: bots move only on `POST /_control/tick`. */
  tickIntervalMs: number;
  /** Automatic ticks stop after this many, so an idle simulator does not run forever. */
  maxTicks: number;
  /** The simulator stops itself after this long (0: only when stopped). */
  lifetimeMs: number;
  /** Time from `POST /offers/batch` until the batch is SUCCESS or FAILURE. */
  batchDelayMs: number;
  sellerRateLimit: TokenBucketSettings;
  storefrontRateLimit: TokenBucketSettings;
  faults: FaultSettings;
  /** The reported forms the storefront and the batch status take (shapes.ts); the defaults are the first forms. */
  shapes: ShapeSettings;
  webhook: WebhookSettings;
  /** Injected time; the system clock when not given. */
  clock: Clock | undefined;
}

export type MarketOptionsInput = Partial<Omit<MarketOptions, 'faults' | 'shapes' | 'webhook' | 'sellerRateLimit' | 'storefrontRateLimit'>> & {
  faults?: Partial<FaultSettings>;
  shapes?: Partial<ShapeSettings>;
  webhook?: Partial<WebhookSettings>;
  sellerRateLimit?: Partial<TokenBucketSettings>;
  storefrontRateLimit?: Partial<TokenBucketSettings>;
};

export const DEFAULT_FAULTS: FaultSettings = {
  errorRate: 0,
  batchErrorRate: 0,
  latencyMs: 0,
  timeoutRate: 0,
  hangMs: 10_000,
  page2Bug: false,
  storefrontBlockRate: 0,
  storefrontBlockLength: 5,
  webhookDropRate: 0,
  webhookDuplicateRate: 0,
};

export const DEFAULT_OPTIONS: Omit<MarketOptions, 'clock' | 'apiKey'> = {
  host: '127.0.0.1',
  port: 4000,
  seed: 1,
  products: 50,
  competitors: 5,
  twins: 1,
  staticSeller: false,
  variants: 1,
  sellers: 1,
  sellersPerProduct: 3,
  basePath: '/v1',
  sellerId: '1000001',
  sellerName: 'Demo Seller',
  tickIntervalMs: 5_000,
  maxTicks: 20_000,
  lifetimeMs: 12 * 60 * 60 * 1000,
  batchDelayMs: 2_000,
  sellerRateLimit: { capacity: 100, refillPerSecond: 10 },
  storefrontRateLimit: { capacity: 10, refillPerSecond: 10 },
  faults: DEFAULT_FAULTS,
  shapes: DEFAULT_SHAPES,
  webhook: { url: undefined, secret: undefined, signature: 'hex-body', valuesChanged: 'object', timeoutMs: 5_000, retries: 3, retryDelayMs: 1_000 },
};

/** Only these hosts: the simulator talks to this machine and nothing else. */
const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', '[::1]']);

export const isLoopbackUrl = (raw: string): boolean => {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTNAMES.has(url.hostname);
  } catch {
    return false;
  }
};

const requireInteger = (name: string, value: number, min: number, max: number): void => {
  if (!Number.isInteger(value) || value < min || value > max) throw new MarketOptionError(`${name} must be a whole number from ${min} to ${max}, got ${value}`);
};

const requireRate = (name: string, value: number): void => {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new MarketOptionError(`${name} must be a probability from 0 to 1, got ${value}`);
};

/** Checks the fault settings alone: the control API applies them at runtime through this too. */
export const checkFaults = (faults: FaultSettings): FaultSettings => {
  requireRate('errorRate', faults.errorRate);
  requireRate('batchErrorRate', faults.batchErrorRate);
  requireRate('timeoutRate', faults.timeoutRate);
  requireRate('storefrontBlockRate', faults.storefrontBlockRate);
  requireRate('webhookDropRate', faults.webhookDropRate);
  requireRate('webhookDuplicateRate', faults.webhookDuplicateRate);
  requireInteger('latencyMs', faults.latencyMs, 0, 30_000);
  // A hang is bounded: it outlasts a caller's timeout, never the simulator.
  requireInteger('hangMs', faults.hangMs, 0, 60_000);
  requireInteger('storefrontBlockLength', faults.storefrontBlockLength, 1, 10_000);
  if (typeof faults.page2Bug !== 'boolean') throw new MarketOptionError('page2Bug must be true or false');
  return faults;
};

const checkBucket = (name: string, bucket: TokenBucketSettings): void => {
  requireInteger(`${name}.capacity`, bucket.capacity, 1, 1_000_000);
  if (!Number.isFinite(bucket.refillPerSecond) || bucket.refillPerSecond <= 0 || bucket.refillPerSecond > 1_000_000) {
    throw new MarketOptionError(`${name}.refillPerSecond must be above 0, got ${bucket.refillPerSecond}`);
  }
  if (bucket.resetForm !== undefined && !RESET_FORMS.includes(bucket.resetForm)) {
    throw new MarketOptionError(`${name}.resetForm must be one of ${RESET_FORMS.join(', ')}, got ${String(bucket.resetForm)}`);
  }
  if (bucket.retryAfter !== undefined && typeof bucket.retryAfter !== 'boolean') throw new MarketOptionError(`${name}.retryAfter must be true or false`);
};

/** Defaults filled in and every setting checked; throws MarketOptionError on the first bad one. */
export const resolveOptions = (input: MarketOptionsInput = {}): MarketOptions => {
  const options: MarketOptions = {
    ...DEFAULT_OPTIONS,
    apiKey: undefined,
    clock: undefined,
    ...input,
    faults: { ...DEFAULT_FAULTS, ...input.faults },
    shapes: { ...DEFAULT_SHAPES, ...input.shapes },
    webhook: { ...DEFAULT_OPTIONS.webhook, ...input.webhook },
    sellerRateLimit: { ...DEFAULT_OPTIONS.sellerRateLimit, ...input.sellerRateLimit },
    storefrontRateLimit: { ...DEFAULT_OPTIONS.storefrontRateLimit, ...input.storefrontRateLimit },
  };
  if (options.host !== '127.0.0.1' && options.host !== '::1') throw new MarketOptionError(`host must be 127.0.0.1 or ::1, got ${String(options.host)}`);
  requireInteger('port', options.port, 0, 65_535);
  requireInteger('seed', options.seed, -2_147_483_648, 4_294_967_295);
  requireInteger('products', options.products, 1, 100_000);
  requireInteger('competitors', options.competitors, 0, 50);
  requireInteger('twins', options.twins, 1, 100);
  requireInteger('variants', options.variants, 1, 10);
  requireInteger('sellers', options.sellers, 1, 50);
  requireInteger('sellersPerProduct', options.sellersPerProduct, 1, 50);
  if (typeof options.staticSeller !== 'boolean') throw new MarketOptionError('staticSeller must be true or false');
  requireInteger('tickIntervalMs', options.tickIntervalMs, 0, 3_600_000);
  requireInteger('maxTicks', options.maxTicks, 0, 10_000_000);
  requireInteger('lifetimeMs', options.lifetimeMs, 0, 7 * 24 * 3_600_000);
  requireInteger('batchDelayMs', options.batchDelayMs, 0, 3_600_000);
  if (!/^\/[A-Za-z0-9/_-]*[A-Za-z0-9_-]$/.test(options.basePath) || options.basePath.startsWith('/_control') || options.basePath.startsWith('/rest')) {
    throw new MarketOptionError(`basePath must look like /v1 (and not clash with /_control or /rest), got ${options.basePath}`);
  }
  // Takealot's seller ids are numbers; the storefront shows this one as `seller.seller_id`.
  if (!/^[1-9]\d{0,14}$/.test(options.sellerId)) throw new MarketOptionError(`sellerId must be a positive whole number, got ${options.sellerId}`);
  if (options.apiKey !== undefined && options.apiKey.length < 16) throw new MarketOptionError('apiKey must be at least 16 characters');
  checkBucket('sellerRateLimit', options.sellerRateLimit);
  checkBucket('storefrontRateLimit', options.storefrontRateLimit);
  checkFaults(options.faults);
  checkShapes(options.shapes);
  const { webhook } = options;
  if (webhook.url !== undefined && !isLoopbackUrl(webhook.url)) {
    throw new MarketOptionError(`webhook URL must be a loopback URL (http://127.0.0.1:... or http://[::1]:...), got ${webhook.url}`);
  }
  if (webhook.signature !== 'hex-body' && webhook.signature !== 'base64-url-body')
    throw new MarketOptionError(`unknown signature scheme ${String(webhook.signature)}`);
  if (webhook.valuesChanged !== 'object' && webhook.valuesChanged !== 'string')
    throw new MarketOptionError(`unknown values_changed format ${String(webhook.valuesChanged)}`);
  requireInteger('webhook.timeoutMs', webhook.timeoutMs, 1, 60_000);
  requireInteger('webhook.retries', webhook.retries, 0, 10);
  requireInteger('webhook.retryDelayMs', webhook.retryDelayMs, 0, 600_000);
  return options;
};
