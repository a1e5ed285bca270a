/**
 * `npm run market -- --flag value ...`: one table of flags, from which both the parser and
 * `--help` are made, so the help can never miss an option.
 */
import { DEFAULT_FAULTS, DEFAULT_OPTIONS, MarketOptionError, type MarketOptionsInput } from './options.js';
import { shapePreset, type ShapeSettings } from './shapes.js';

type Setter = (options: MarketOptionsInput, value: string) => void;

interface Flag {
  name: string;
  value: string;
  help: string;
  set: Setter;
}

const number = (flag: string, raw: string): number => {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw new MarketOptionError(`--${flag} needs a number, got "${raw}"`);
  return value;
};

const num =
  (flag: string, apply: (options: MarketOptionsInput, value: number) => void): Setter =>
  (options, raw) =>
    apply(options, number(flag, raw));

const fault =
  (flag: string, key: keyof typeof DEFAULT_FAULTS): Setter =>
  (options, raw) => {
    options.faults = { ...options.faults, [key]: number(flag, raw) };
  };

/** One shape switch; the value is checked with the other settings (shapes.ts, checkShapes). */
const shape =
  <K extends keyof ShapeSettings>(key: K, read: (raw: string) => ShapeSettings[K] = (raw) => raw as ShapeSettings[K]): Setter =>
  (options, raw) => {
    options.shapes = { ...options.shapes, [key]: read(raw) };
  };

export const FLAGS: Flag[] = [
  { name: 'port', value: 'N', help: `port to listen on, 0 for any free one (default ${DEFAULT_OPTIONS.port})`, set: num('port', (o, v) => (o.port = v)) },
  {
    name: 'host',
    value: 'ADDR',
    help: 'loopback address to bind: 127.0.0.1 (default) or ::1',
    set: (o, v) => {
      o.host = v as '127.0.0.1';
    },
  },
  { name: 'seed', value: 'N', help: `seed of the market and of every random draw (default ${DEFAULT_OPTIONS.seed})`, set: num('seed', (o, v) => (o.seed = v)) },
  {
    name: 'products',
    value: 'N',
    help: `products, each with one own offer (default ${DEFAULT_OPTIONS.products})`,
    set: num('products', (o, v) => (o.products = v)),
  },
  {
    name: 'competitors',
    value: 'N',
    help: `competitor offers per product (default ${DEFAULT_OPTIONS.competitors})`,
    set: num('competitors', (o, v) => (o.competitors = v)),
  },
  {
    name: 'twins',
    value: 'N',
    help: `products in families of N identical copies whose bots move alike (default ${DEFAULT_OPTIONS.twins}: none)`,
    set: num('twins', (o, v) => (o.twins = v)),
  },
  {
    name: 'variants',
    value: 'N',
    help: `product lines of 1, 2, ... N variants in turn, each variant its own tsin, offers and buy box (default ${DEFAULT_OPTIONS.variants}: one each)`,
    set: num('variants', (o, v) => (o.variants = v)),
  },
  {
    name: 'sellers',
    value: 'N',
    help: `seller accounts, each its own API key and seller id (the next ids after --seller-id), on shared product lines (default ${DEFAULT_OPTIONS.sellers})`,
    set: num('sellers', (o, v) => (o.sellers = v)),
  },
  {
    name: 'sellers-per-product',
    value: 'N',
    help: `with --sellers: the most accounts selling one product (default ${DEFAULT_OPTIONS.sellersPerProduct})`,
    set: num('sellersPerProduct', (o, v) => (o.sellersPerProduct = v)),
  },
  { name: 'base-path', value: 'PATH', help: `base path of the seller API (default ${DEFAULT_OPTIONS.basePath})`, set: (o, v) => (o.basePath = v) },
  { name: 'seller-id', value: 'ID', help: `the demo seller's id (default ${DEFAULT_OPTIONS.sellerId})`, set: (o, v) => (o.sellerId = v) },
  {
    name: 'tick-ms',
    value: 'MS',
    help: `time between bot ticks, 0: only on POST /_control/tick (default ${DEFAULT_OPTIONS.tickIntervalMs})`,
    set: num('tick-ms', (o, v) => (o.tickIntervalMs = v)),
  },
  {
    name: 'max-ticks',
    value: 'N',
    help: `automatic ticks before the bots rest (default ${DEFAULT_OPTIONS.maxTicks})`,
    set: num('max-ticks', (o, v) => (o.maxTicks = v)),
  },
  {
    name: 'lifetime-ms',
    value: 'MS',
    help: `stop by itself after this long, 0: never (default ${DEFAULT_OPTIONS.lifetimeMs}, 12 h)`,
    set: num('lifetime-ms', (o, v) => (o.lifetimeMs = v)),
  },
  {
    name: 'batch-delay-ms',
    value: 'MS',
    help: `time until a batch is SUCCESS/FAILURE (default ${DEFAULT_OPTIONS.batchDelayMs})`,
    set: num('batch-delay-ms', (o, v) => (o.batchDelayMs = v)),
  },
  {
    name: 'seller-rate',
    value: 'N/S',
    help: `seller API requests per second per key (default ${DEFAULT_OPTIONS.sellerRateLimit.refillPerSecond})`,
    set: num('seller-rate', (o, v) => (o.sellerRateLimit = { ...o.sellerRateLimit, refillPerSecond: v })),
  },
  {
    name: 'seller-burst',
    value: 'N',
    help: `seller API burst per key, x-RateLimit-Limit (default ${DEFAULT_OPTIONS.sellerRateLimit.capacity})`,
    set: num('seller-burst', (o, v) => (o.sellerRateLimit = { ...o.sellerRateLimit, capacity: v })),
  },
  {
    name: 'storefront-rate',
    value: 'N/S',
    help: `storefront requests per second per caller (default ${DEFAULT_OPTIONS.storefrontRateLimit.refillPerSecond})`,
    set: num('storefront-rate', (o, v) => (o.storefrontRateLimit = { ...o.storefrontRateLimit, refillPerSecond: v })),
  },
  {
    name: 'storefront-burst',
    value: 'N',
    help: `storefront burst per caller (default ${DEFAULT_OPTIONS.storefrontRateLimit.capacity})`,
    set: num('storefront-burst', (o, v) => (o.storefrontRateLimit = { ...o.storefrontRateLimit, capacity: v })),
  },
  { name: 'error-rate', value: 'P', help: 'probability of a 500 (0-1, default 0)', set: fault('error-rate', 'errorRate') },
  {
    name: 'batch-error-rate',
    value: 'P',
    help: 'probability of a 500 for a price write, POST /offers/batch (0-1, default 0)',
    set: fault('batch-error-rate', 'batchErrorRate'),
  },
  { name: 'latency-ms', value: 'MS', help: 'latency added to every answer (default 0)', set: fault('latency-ms', 'latencyMs') },
  { name: 'timeout-rate', value: 'P', help: 'probability of a hang of --hang-ms then 504 (default 0)', set: fault('timeout-rate', 'timeoutRate') },
  { name: 'hang-ms', value: 'MS', help: `length of a hang, at most 60000 (default ${DEFAULT_FAULTS.hangMs})`, set: fault('hang-ms', 'hangMs') },
  {
    name: 'page2-bug',
    value: '',
    help: 'page 2 of GET /offers comes back without continuation_token',
    set: (o) => {
      o.faults = { ...o.faults, page2Bug: true };
    },
  },
  {
    name: 'block-rate',
    value: 'P',
    help: 'probability a storefront request starts a burst of 403s (default 0)',
    set: fault('block-rate', 'storefrontBlockRate'),
  },
  {
    name: 'block-length',
    value: 'N',
    help: `storefront requests in one 403 burst (default ${DEFAULT_FAULTS.storefrontBlockLength})`,
    set: fault('block-length', 'storefrontBlockLength'),
  },
  {
    name: 'shapes',
    value: 'PRESET',
    help: 'default, or reported: every reported form below at once (give single switches after it to change one)',
    set: (o, v) => {
      o.shapes = { ...o.shapes, ...shapePreset(v) };
    },
  },
  { name: 'rating', value: 'FORM', help: "a storefront seller's rating: object (default), number or absent", set: shape('rating') },
  {
    name: 'storefront-sku',
    value: 'FORM',
    help: "a storefront entry's sku: seller (the seller's SKU, default), number or absent",
    set: shape('storefrontSku'),
  },
  {
    name: 'buybox-seller',
    value: 'FORM',
    help: "item (default) or detail: buy-box items without seller; the selected one's in seller_detail, the other's in sponsored_ads_seller_id",
    set: shape('buyboxSeller'),
  },
  { name: 'seller-id-prefix', value: '', help: 'storefront seller ids as M<id> text', set: shape('sellerIdPrefix', () => true) },
  {
    name: 'takealot-retail',
    value: '',
    help: "Takealot's own retail offer (is_takealot, no seller) on every product",
    set: shape('takealotRetail', () => true),
  },
  {
    name: 'empty-page-rate',
    value: 'P',
    help: 'probability a storefront page is answered 200 with {} (default 0)',
    set: shape('emptyPageRate', (raw) => number('empty-page-rate', raw)),
  },
  { name: 'buybox-tsin', value: 'FORM', help: "the buy box's tsin: number (default), string or absent", set: shape('buyboxTsin') },
  {
    name: 'variant-page',
    value: 'FORM',
    help: "the page of a line of several variants: default (its default variant's buy box), none (no buy box until one is chosen) or mixed (per line)",
    set: shape('variantPage'),
  },
  { name: 'batch-status', value: 'FORM', help: 'batch status as v1 results[] (default) or v2 result[{offer, validation_errors}]', set: shape('batchStatus') },
  {
    name: 'webhook-url',
    value: 'URL',
    help: 'loopback URL for webhooks (http://127.0.0.1:PORT/...); none: no webhooks',
    set: (o, v) => (o.webhook = { ...o.webhook, url: v }),
  },
  {
    name: 'webhook-secret',
    value: 'S',
    help: 'webhook HMAC secret (default: generated and printed)',
    set: (o, v) => (o.webhook = { ...o.webhook, secret: v }),
  },
  {
    name: 'signature',
    value: 'SCHEME',
    help: 'hex-body (hex HMAC of the body, default) or base64-url-body (base64 HMAC of URL + body)',
    set: (o, v) => (o.webhook = { ...o.webhook, signature: v as 'hex-body' }),
  },
  {
    name: 'values-changed',
    value: 'FORMAT',
    help: 'values_changed as an object (default) or a JSON string',
    set: (o, v) => (o.webhook = { ...o.webhook, valuesChanged: v as 'object' }),
  },
  { name: 'webhook-drop-rate', value: 'P', help: 'probability a webhook event is never sent (default 0)', set: fault('webhook-drop-rate', 'webhookDropRate') },
  {
    name: 'webhook-duplicate-rate',
    value: 'P',
    help: 'probability a webhook event is sent twice (default 0)',
    set: fault('webhook-duplicate-rate', 'webhookDuplicateRate'),
  },
  {
    name: 'webhook-retries',
    value: 'N',
    help: 'retries of a failed delivery (default 3)',
    set: num('webhook-retries', (o, v) => (o.webhook = { ...o.webhook, retries: v })),
  },
];

export const helpText = (): string =>
  [
    'Usage: npm run market -- [options]',
    '',
    'A local imitation of the Takealot marketplace (seller API v1, storefront product pages, webhooks) on loopback.',
    '',
    ...FLAGS.map((flag) => `  --${`${flag.name}${flag.value ? ` ${flag.value}` : ''}`.padEnd(30)} ${flag.help}`),
    `  ${'--help'.padEnd(32)} this text`,
  ].join('\n');

/** Parses argv (without node and the script); `help: true` when --help was given. */
export const parseMarketArgs = (argv: readonly string[]): { help: boolean; options: MarketOptionsInput } => {
  const options: MarketOptionsInput = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return { help: true, options };
    const [name, inline] = arg.startsWith('--') ? (arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined]) : [arg, undefined];
    const flag = FLAGS.find((candidate) => candidate.name === name);
    if (flag === undefined) throw new MarketOptionError(`unknown option ${arg} (see --help)`);
    if (flag.value === '') {
      flag.set(options, '');
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new MarketOptionError(`--${flag.name} needs a value`);
    flag.set(options, value);
  }
  return { help: false, options };
};
