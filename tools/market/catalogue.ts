/**
 * The market's contents and how a seed generates them: products, the demo seller's own offer on
 * each, and competitor offers from a pool of sellers, each driven by a bot (see bots.ts).
 */
import type { BotConfig, BotState } from './bot-config.js';
import type { Prng } from './prng.js';

export type OfferStatus = 'buyable' | 'not_buyable' | 'disabled_by_seller' | 'disabled_by_takealot';

export interface SellerWarehouseStock {
  seller_warehouse_id: number;
  quantity_available: number;
}

export interface TakealotWarehouseStock {
  warehouse: { warehouse_id: number; name: string };
  quantity_available: number;
}

/** The demo seller's offer, with the fields of the v1 seller API. */
export interface OwnOffer {
  offer_id: number;
  tsin_id: number;
  sku: string;
  barcode: string;
  product_label: string;
  title: string;
  productline_id: number;
  selling_price: number;
  rrp: number;
  minimum_leadtime_days: number;
  status: OfferStatus;
  benchmark_price: number | null;
  seller_warehouse_stock: SellerWarehouseStock[];
  takealot_warehouse_stock: TakealotWarehouseStock[];
  /** When the offer was listed: the buy box breaks ties in favour of the earlier listing. */
  listed_at: number;
}

export interface CompetitorSeller {
  seller_id: number;
  display_name: string;
  rating_avg: number;
  rating_count: number;
  is_takealot: boolean;
}

export interface CompetitorOffer {
  /** Stable within the simulator: `<plid>-<index>`. */
  key: string;
  sku: string;
  seller: CompetitorSeller;
  price: number;
  /** Held at Takealot's warehouses (ships now); otherwise a leadtime offer. */
  in_stock: boolean;
  leadtime_days: number;
  /** False while the offer is off the page (its stock ran out). */
  available: boolean;
  listed_at: number;
  bot: BotConfig;
  botState: BotState;
}

/**
 * One variant of a product line (a colour, a size): its own tsin (`own.tsin_id`), own offer,
 * competitors and buy box. A line of one variant is what the storefront calls a product; the
 * variants of a line share its `plid` and its page (variantLines).
 */
export interface Product {
  /** The product line's id: the storefront page's key, the same for every variant of the line. */
  plid: number;
  title: string;
  /** The variant's name on the page's selector, on a line of several variants. */
  variant?: string;
  /** How much dearer (in %) an in-stock offer may be than a leadtime offer and still win Best Price. */
  in_stock_premium_pct: number;
  own: OwnOffer;
  competitors: CompetitorOffer[];
  /** With several seller accounts (options.ts, `sellers`): the offers of the other accounts that sell this variant too (accountOffers). */
  accounts?: AccountOffer[];
}

/** An offer of a seller account other than the first (which holds `own`) on a product it sells too. */
export interface AccountOffer {
  /** The account's index: 1 for the second account, and so on. */
  account: number;
  offer: OwnOffer;
}

/** Offer ids of account `n` are its own range, above every first account's id: pages and lookups stay per account. */
const ACCOUNT_OFFER_ID_STRIDE = 10_000_000;

/**
 * Spreads `sellers` accounts over the products: the first account sells every product (its
 * `own` offer, as with one seller); each product is sold besides by 0 to `perProduct - 1` of the
 * other accounts, drawn from `prng`, each with an offer of its own (own id range, SKU and price,
 * the product's RRP, barcode and stock). Deterministic for a seed.
 */
export const accountOffers = (products: readonly Product[], sellers: number, perProduct: number, prng: Prng): void => {
  if (sellers < 2) return;
  for (const product of products) {
    const others = Array.from({ length: sellers - 1 }, (_, n) => n + 1);
    const count = prng.int(0, Math.min(sellers, perProduct) - 1);
    const chosen: number[] = [];
    while (chosen.length < count) chosen.push(others.splice(prng.int(0, others.length - 1), 1)[0]!);
    product.accounts = chosen
      .sort((a, b) => a - b)
      .map((account) => {
        const { own } = product;
        const price = clamp(Math.round((own.selling_price * prng.int(90, 110)) / 100), 1, own.rrp);
        return {
          account,
          offer: {
            ...structuredClone(own),
            offer_id: own.offer_id + account * ACCOUNT_OFFER_ID_STRIDE,
            sku: `${own.sku}-S${account + 1}`,
            selling_price: price,
            status: 'buyable' as const,
            listed_at: own.listed_at + account,
          },
        };
      });
  }
};

const ADJECTIVES = ['Compact', 'Wireless', 'Stainless', 'Ergonomic', 'Classic', 'Portable', 'Smart', 'Heavy-Duty', 'Eco', 'Premium'];
const NOUNS = ['Kettle', 'Headphones', 'Desk Lamp', 'Blender', 'Backpack', 'Water Bottle', 'Air Fryer', 'Power Bank', 'Toaster', 'Yoga Mat', 'Drill', 'Router'];
const SELLER_WORDS = ['Cape', 'Karoo', 'Protea', 'Jozi', 'Durban', 'Highveld', 'Umhlanga', 'Baobab', 'Savanna', 'Table Bay', 'Limpopo', 'Drakens'];
const SELLER_KINDS = ['Traders', 'Goods', 'Direct', 'Online', 'Wholesale', 'Supply Co', 'Deals', 'Store'];
const TAKEALOT_WAREHOUSES = [
  { warehouse_id: 1, name: 'JHB' },
  { warehouse_id: 3, name: 'CPT' },
];
const BOT_ORDER = ['undercutter', 'fixed', 'random_walk', 'leadtime', 'stock_cycle'] as const;
export const TAKEALOT_SELLER: CompetitorSeller = { seller_id: 29_844_811, display_name: 'Takealot', rating_avg: 4.6, rating_count: 250_000, is_takealot: true };
const DAY_MS = 86_400_000;

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

/** A pool of competitor sellers, a product drawing its competitors from it without repeats. */
const sellerPool = (prng: Prng, size: number): CompetitorSeller[] =>
  Array.from({ length: size }, (_, index) => ({
    seller_id: 30_000_000 + index * 37 + 11,
    display_name: `${prng.pick(SELLER_WORDS)} ${prng.pick(SELLER_KINDS)}`,
    rating_avg: prng.int(30, 50) / 10,
    rating_count: prng.int(0, 5_000),
    is_takealot: false,
  }));

const competitorSellers = (prng: Prng, pool: CompetitorSeller[], count: number): CompetitorSeller[] => {
  const chosen: CompetitorSeller[] = [];
  // Takealot's own retail offer sits on some products, as it does on the storefront.
  if (count > 0 && prng.chance(0.1)) chosen.push(TAKEALOT_SELLER);
  const remaining = [...pool];
  while (chosen.length < count && remaining.length > 0) chosen.push(remaining.splice(prng.int(0, remaining.length - 1), 1)[0] as CompetitorSeller);
  return chosen;
};

/** The identifiers of the product numbered `number` (from 1) and of its own offer. */
const productNumbers = (number: number) => ({
  plid: 40_000_000 + number * 13,
  own: {
    offer_id: 100_000_000 + number,
    tsin_id: 70_000_000 + number * 7,
    sku: `SKU-${String(number).padStart(5, '0')}`,
    barcode: `600${String(number).padStart(10, '0')}`,
  },
});

/** A competitor offer's identifiers on the product `plid`: the `index`-th offer there, of `sellerId`. */
const competitorIds = (plid: number, sellerId: number, index: number) => ({ key: `${plid}-${index}`, sku: `C${sellerId}-${plid}` });

const competitorOffer = (
  prng: Prng,
  product: { plid: number; rrp: number; ownPrice: number },
  seller: CompetitorSeller,
  index: number,
  epoch: number,
): CompetitorOffer => {
  const kind = index < BOT_ORDER.length ? BOT_ORDER[index]! : prng.pick(BOT_ORDER);
  const price = clamp(Math.round((product.ownPrice * prng.int(85, 115)) / 100), 1, product.rrp);
  const step = Math.max(1, Math.round(price / 100));
  const base = {
    ...competitorIds(product.plid, seller.seller_id, index),
    seller,
    price,
    in_stock: prng.chance(0.8),
    leadtime_days: prng.int(3, 7),
    available: true,
    listed_at: epoch - prng.int(1, 365) * DAY_MS - index,
  };
  switch (kind) {
    case 'undercutter':
      return { ...base, bot: { kind, floor: Math.max(1, Math.round((price * prng.int(80, 95)) / 100)), step }, botState: {} };
    case 'random_walk':
      return {
        ...base,
        bot: {
          kind,
          min: Math.max(1, Math.round(price * 0.85)),
          max: Math.min(product.rrp, Math.round(price * 1.15)),
          maxStep: Math.max(1, Math.round(price / 50)),
        },
        botState: {},
      };
    case 'leadtime':
      // A seller without stock at Takealot, quoting a long lead time and undercutting on price to make up for it.
      return {
        ...base,
        price: clamp(Math.round((price * prng.int(88, 97)) / 100), 1, product.rrp),
        in_stock: false,
        leadtime_days: prng.int(5, 14),
        bot: { kind },
        botState: {},
      };
    case 'stock_cycle': {
      const inStockTicks = prng.int(3, 8);
      return { ...base, in_stock: true, bot: { kind, inStockTicks, outOfStockTicks: prng.int(1, 4) }, botState: { ticksLeftInPhase: inStockTicks } };
    }
    case 'fixed':
      return { ...base, bot: { kind }, botState: {} };
  }
};

export interface CatalogueSettings {
  products: number;
  competitors: number;
  /** Listing dates are drawn before this instant. */
  epoch: number;
}

/**
 * The products in families of `twins` identical copies (the same title, prices, stock, premium
 * and rivals with the same bots), each copy numbered as a product of its own: products that
 * start alike, so repricing approaches can be compared on them (`twins` in options.ts).
 */
export const twinProducts = (families: readonly Product[], twins: number, total: number): Product[] =>
  Array.from({ length: total }, (_, index): Product => {
    const family = structuredClone(families[Math.floor(index / twins)]!);
    const { plid, own } = productNumbers(index + 1);
    return {
      ...family,
      plid,
      own: { ...family.own, ...own, productline_id: plid },
      competitors: family.competitors.map((offer, position) => ({ ...offer, ...competitorIds(plid, offer.seller.seller_id, position) })),
    };
  });

const VARIANT_NAMES = ['Black', 'White', 'Red', 'Blue', 'Green', 'Grey', 'Pink', 'Navy', 'Small', 'Large'];

/**
 * Groups the products into product lines of 1, 2, ... `variants` variants in turn (with 3: one
 * line of one variant, one of two, one of three, then again), so some lines hold several variants
 * and some one. Every product keeps its own tsin, own offer, competitors and buy box; a line's
 * variants take the `plid` and title of its first, which is the line's default variant (the one
 * its page shows). Draws nothing from a PRNG: a seed's offers and bots are what they were.
 */
export const variantLines = (products: readonly Product[], variants: number): Product[] => {
  const lines: Product[] = [];
  for (let index = 0, size = 1; index < products.length; index += size, size = (size % Math.max(1, variants)) + 1) {
    const line = products.slice(index, index + size);
    const head = line[0]!;
    line.forEach((product, position) => {
      const variant = line.length > 1 ? VARIANT_NAMES[position % VARIANT_NAMES.length]! : undefined;
      const title = variant === undefined ? head.title : `${head.title} - ${variant}`;
      const own = { ...product.own, productline_id: head.plid, title, product_label: title.toUpperCase() };
      lines.push({ ...product, plid: head.plid, title, ...(variant === undefined ? {} : { variant }), own });
    });
  }
  return lines;
};

/** The whole market of a seed: the same settings and stream always give the same products. */
export const generateCatalogue = (prng: Prng, settings: CatalogueSettings): Product[] => {
  const pool = sellerPool(prng, Math.max(10, settings.competitors * 3));
  return Array.from({ length: settings.products }, (_, index): Product => {
    const number = index + 1;
    const { plid } = productNumbers(number);
    const title = `${prng.pick(ADJECTIVES)} ${prng.pick(NOUNS)} ${prng.int(100, 999)}`;
    const rrp = prng.int(10, 500) * 10 - 1;
    const ownPrice = Math.round((rrp * prng.int(75, 95)) / 100);
    const inStock = prng.chance(0.7);
    const own: OwnOffer = {
      ...productNumbers(number).own,
      product_label: title.toUpperCase(),
      title,
      productline_id: plid,
      selling_price: ownPrice,
      rrp,
      minimum_leadtime_days: prng.int(2, 10),
      status: 'buyable',
      benchmark_price: null,
      seller_warehouse_stock: [{ seller_warehouse_id: 501, quantity_available: prng.int(0, 40) }],
      takealot_warehouse_stock: TAKEALOT_WAREHOUSES.map((warehouse) => ({ warehouse, quantity_available: inStock ? prng.int(1, 30) : 0 })),
      listed_at: settings.epoch - prng.int(1, 365) * DAY_MS,
    };
    const competitors = competitorSellers(prng, pool, settings.competitors).map((seller, position) =>
      competitorOffer(prng, { plid, rrp, ownPrice }, seller, position, settings.epoch),
    );
    return { plid, title, in_stock_premium_pct: prng.int(0, 10), own, competitors };
  });
};

/** The own offer is in stock when Takealot's warehouses hold some of it. */
export const ownInStock = (offer: OwnOffer): boolean => offer.takealot_warehouse_stock.some((stock) => stock.quantity_available > 0);

/**
 * The static-price seller (`staticSeller` option): one seller on every product, at the demo
 * seller's start price and with its stock and lead time, that never moves. Benchmarks compare
 * how long a repriced demo seller holds Best Price with how long this one does in the same market.
 */
export const STATIC_SELLER: CompetitorSeller = { seller_id: 29_900_001, display_name: 'Static Prices', rating_avg: 4.5, rating_count: 120, is_takealot: false };
export const STATIC_OFFER_SUFFIX = 'static';

/**
 * The static seller's offer on a product, from the own offer as the catalogue made it. Listed a
 * moment before the own offer, so a tie at the same price goes to the static seller: the demo
 * seller holds Best Price only by being cheaper. Draws nothing from a PRNG (a seed's market is
 * the same with or without it).
 */
export const staticSellerOffer = (product: Product): CompetitorOffer => ({
  key: `${product.plid}-${STATIC_OFFER_SUFFIX}`,
  sku: `C${STATIC_SELLER.seller_id}-${product.plid}`,
  seller: STATIC_SELLER,
  price: product.own.selling_price,
  in_stock: ownInStock(product.own),
  leadtime_days: product.own.minimum_leadtime_days,
  available: true,
  listed_at: product.own.listed_at - 1,
  bot: { kind: 'fixed' },
  botState: {},
});

/**
 * Takealot's own retail offer (the `takealotRetail` shape): one more competitor on every product
 * that has none of Takealot's yet, in stock at a fixed price below the RRP, taking part in the
 * buy-box rule like any offer. Made from the product's RRP and listing alone and drawing nothing
 * from a PRNG, so it is the same whenever it is switched on, and the rest of the market is the
 * seed's. Listed just after the own offer: a tie at the same price goes to the demo seller.
 */
export const TAKEALOT_RETAIL_SUFFIX = 'takealot';
const RETAIL_PRICE_PCT_OF_RRP = 92;

export const takealotRetailOffer = (product: Product): CompetitorOffer => ({
  key: `${product.plid}-${TAKEALOT_RETAIL_SUFFIX}`,
  sku: `T${product.plid}`,
  seller: TAKEALOT_SELLER,
  price: Math.max(1, Math.round((product.own.rrp * RETAIL_PRICE_PCT_OF_RRP) / 100)),
  in_stock: true,
  leadtime_days: 2,
  available: true,
  listed_at: product.own.listed_at + 1,
  bot: { kind: 'fixed' },
  botState: {},
});
