/**
 * The data `npm start` loads for the demo client: four connector types (Takealot's for the
 * marketplace simulator's connection), 50 products and a few
 * hundred offers, in the import format (one record per NDJSON line), and the repricers it starts
 * with. Built from a seeded PRNG, so every start serves the same catalogue and the printed
 * sample requests stay valid.
 */
import { createRepricerBody } from '../../lambdas/domain/create-repricer.js';
import { centsToNumber, toCents } from '../../lambdas/domain/money.js';
import { computedFields } from '../../lambdas/domain/pricing.js';
import { BUYABLE, DEFAULT_PRICE_STEP, targetPrice, type EngineOffer, type EngineRepricer, type Target } from '../../lambdas/domain/repricing.js';

/**
 * The demo client's seller id: the marketplace simulator's seller (its default `sellerId`), so
 * the client's own offers on the simulator's storefront pages are recognised as its own.
 */
export const DEMO_SELLER_ID = '1000001';
export const DEMO_PRODUCT_COUNT = 50;
const SEED = 20_260_115;
/** Timestamps are spread over the days before this instant, not before "now", to stay stable. */
const CLOCK = Date.parse('2026-01-15T09:00:00.000Z');

interface FeeEstimate {
  readonly commission: number;
  readonly fulfilment: number;
  readonly commission_percentage: number;
}

type FeeEstimates = Record<string, { readonly instock: FeeEstimate; readonly leadtime: FeeEstimate }>;

export interface DemoConnectorType {
  readonly uid: string;
  readonly name: string;
  readonly logo: string;
  readonly website: string | null;
  /** The operator's price increment for repricing (reference data only); 1.00 when absent. */
  readonly price_step?: number;
}

export interface DemoProduct {
  readonly code: string;
  readonly title: string;
  readonly description: string;
  readonly brand: string;
  readonly colour: string;
  readonly barcode: string;
  readonly type: string | null;
  readonly material: string | null;
  readonly parent_code: string | null;
  readonly images: string[] | null;
  readonly main_image: string;
  readonly retail_price: number;
  readonly soh: number;
  readonly height_cm: number;
  readonly length_cm: number;
  readonly width_cm: number;
  readonly weight_g: number;
  readonly fee_estimates: FeeEstimates | null;
}

export interface DemoOffer {
  readonly offer_id: string;
  readonly product_code: string;
  readonly offer_price: number;
  readonly offer_status: string;
  readonly stock_status: 'in_stock' | 'lead_time';
  readonly competitiveness: string;
  readonly total_competitors: number;
  readonly winning: boolean;
  readonly winning_delivery: boolean;
  readonly winning_price: number;
  readonly rating_avg: number;
  readonly rating_count: string;
  readonly seller_id: string;
  readonly seller_name: string;
  readonly url: string;
  readonly last_seen_at: string | null;
}

export type DemoRecord =
  | { readonly type: 'connector_type'; readonly data: DemoConnectorType }
  | { readonly type: 'product'; readonly data: DemoProduct }
  | { readonly type: 'offer'; readonly data: DemoOffer };

/** mulberry32: small, fast and good enough to make varied but repeatable demo data. */
const prng = (seed: number) => {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  const chance = (probability: number): boolean => next() < probability;
  /** Fisher-Yates on a copy. */
  const shuffled = <T>(items: readonly T[]): T[] => {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i -= 1) {
      const j = int(0, i);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy;
  };
  return { int, pick, chance, shuffled };
};
type Random = ReturnType<typeof prng>;

/**
 * The demo client's default connector: its offers are sold there, and its repricers are for it.
 * Takealot, the marketplace `npm start` connects it to, so its first answers are a Takealot seller's.
 */
export const DEMO_CONNECTOR = 'takealot';

/** Money is drawn in whole cents, so every amount has at most two decimals. */
const cents = (amount: number): number => amount / 100;

export const DEMO_CONNECTOR_TYPES: readonly DemoConnectorType[] = [
  { uid: 'amazon', name: 'Amazon', logo: 'https://cdn.repricer.example/logos/amazon.svg', website: 'https://www.amazon.com' },
  { uid: 'ebay', name: 'eBay', logo: 'https://cdn.repricer.example/logos/ebay.svg', website: 'https://www.ebay.com' },
  { uid: 'bol', name: 'bol.com', logo: 'https://cdn.repricer.example/logos/bol.svg', website: null },
  // The marketplace `npm start` connects the demo client to: Takealot prices in whole rand.
  { uid: 'takealot', name: 'Takealot', logo: 'https://cdn.repricer.example/logos/takealot.svg', website: 'https://www.takealot.com', price_step: 1 },
];

const ITEMS = [
  { noun: 'Kettle', type: 'Kitchen', material: 'Stainless steel' },
  { noun: 'Desk Lamp', type: 'Lighting', material: 'Aluminium' },
  { noun: 'Backpack', type: 'Bags', material: 'Recycled polyester' },
  { noun: 'Water Bottle', type: 'Outdoor', material: 'Stainless steel' },
  { noun: 'Yoga Mat', type: 'Fitness', material: 'TPE' },
  { noun: 'Headphones', type: 'Audio', material: null },
  { noun: 'Chef Knife', type: 'Kitchen', material: 'Carbon steel' },
  { noun: 'Throw Blanket', type: null, material: 'Cotton' },
  { noun: 'Plant Pot', type: 'Garden', material: 'Ceramic' },
  { noun: 'Phone Stand', type: null, material: null },
] as const;
const ADJECTIVES = ['Classic', 'Compact', 'Premium', 'Everyday', 'Nordic', 'Pro', 'Eco', 'Travel'];
const BRANDS = ['Northwind', 'Acme', 'Bluebird', 'Contoso', 'Fabrikam', 'Lumen & Co'];
const COLOURS = ['black', 'white', 'sage green', 'navy', 'terracotta', 'grey'];
const OTHER_SELLERS = [
  { id: 'seller-7f3a', name: 'Bright Deals Ltd' },
  { id: 'seller-19cc', name: 'HomeGoods Direct' },
  { id: 'seller-a402', name: 'Value Corner' },
  { id: 'seller-5e11', name: 'Mega Outlet' },
  { id: 'seller-c0de', name: 'Nordic Imports' },
  { id: 'seller-88b2', name: 'QuickShip Store' },
];
const COMPETITIVENESS = ['high', 'medium', 'low'] as const;

/** EAN-13 with a correct check digit, so the barcodes look like the real thing. */
const ean13 = (random: Random): string => {
  const digits = [5, 0, ...Array.from({ length: 10 }, () => random.int(0, 9))];
  const sum = digits.reduce((total, digit, i) => total + digit * (i % 2 === 0 ? 1 : 3), 0);
  return [...digits, (10 - (sum % 10)) % 10].join('');
};

const feeEstimate = (random: Random, price: number, percentage: number, fulfilmentCents: number): FeeEstimate => ({
  commission: cents(Math.round(price * percentage)),
  fulfilment: cents(fulfilmentCents),
  commission_percentage: percentage,
});

/** Connectors come from the keys: none, one, or (every few products) two of them. */
const feeEstimates = (random: Random, index: number, price: number): FeeEstimates | null => {
  if (index % 7 === 3) return null;
  const uids = index % 5 === 1 ? [DEMO_CONNECTOR, random.pick(['ebay', 'bol'])] : [index % 9 === 4 ? 'bol' : DEMO_CONNECTOR];
  return Object.fromEntries(
    uids.map((uid) => {
      const percentage = random.pick([7, 8.5, 12, 15, 15.45]);
      const fulfilment = random.int(150, 650);
      return [
        uid,
        {
          instock: feeEstimate(random, price, percentage, fulfilment),
          leadtime: feeEstimate(random, price, percentage, fulfilment + random.int(50, 300)),
        },
      ];
    }),
  );
};

const productCode = (index: number): string => `DEMO-${String(index + 1).padStart(4, '0')}`;

const product = (random: Random, index: number): DemoProduct => {
  const item = ITEMS[index % ITEMS.length] ?? ITEMS[0];
  const adjective = ADJECTIVES[Math.floor(index / ITEMS.length) % ADJECTIVES.length] ?? 'Classic';
  const brand = random.pick(BRANDS);
  const colour = random.pick(COLOURS);
  const code = productCode(index);
  const priceCents = random.int(499, 24_999);
  const title = `${brand} ${adjective} ${item.noun}, ${colour}`;
  const imageBase = `https://images.repricer.example/products/${code.toLowerCase()}`;
  return {
    code,
    title,
    description: `${title}.\n\nWhy you'll like it:\n- Made to last, with a ${item.material?.toLowerCase() ?? 'sturdy'} finish\n- Ships in recyclable packaging`,
    brand,
    colour,
    barcode: ean13(random),
    type: item.type,
    material: item.material,
    // Every tenth product is a colour variant of the one before it.
    parent_code: index % 10 === 9 ? productCode(index - 1) : null,
    images: random.chance(0.3) ? null : Array.from({ length: random.int(1, 3) }, (_, n) => `${imageBase}-${n + 1}.jpg`),
    main_image: `${imageBase}-main.jpg`,
    retail_price: cents(priceCents),
    soh: index % 6 === 5 ? 0 : random.int(1, 400),
    height_cm: random.int(20, 600) / 10,
    length_cm: random.int(50, 800) / 10,
    width_cm: random.int(20, 400) / 10,
    weight_g: random.int(80, 4_000),
    fee_estimates: feeEstimates(random, index, priceCents / 100),
  };
};

const lastSeen = (random: Random): string | null =>
  random.chance(0.15) ? null : new Date(CLOCK - random.int(0, 14 * 24 * 60) * 60_000 - random.int(0, 59_999)).toISOString();

/**
 * The client's own offer (most products) and 2 to 5 other sellers' offers on each product.
 * The cheapest offer of a product wins; everyone sees the same winning price.
 */
const offersFor = (random: Random, item: DemoProduct, index: number, nextId: () => string): DemoOffer[] => {
  const listPrice = Math.round(item.retail_price * 100);
  const sellers = [...(index % 12 === 11 ? [] : [{ id: DEMO_SELLER_ID, name: 'Demo Seller' }]), ...random.shuffled(OTHER_SELLERS).slice(0, random.int(2, 5))];
  const prices = sellers.map(() => Math.max(100, listPrice + random.int(-Math.floor(listPrice / 5), Math.floor(listPrice / 10))));
  const winningCents = Math.min(...prices);
  const competitors = random.int(0, 30);
  return sellers.map((seller, n) => {
    const own = seller.id === DEMO_SELLER_ID;
    const price = prices[n] ?? listPrice;
    const offerId = nextId();
    return {
      offer_id: offerId,
      product_code: item.code,
      offer_price: cents(price),
      offer_status: 'buyable',
      stock_status: own ? (item.soh > 0 ? 'in_stock' : 'lead_time') : random.chance(0.8) ? 'in_stock' : 'lead_time',
      competitiveness: random.pick(COMPETITIVENESS),
      total_competitors: own ? competitors : random.int(0, 30),
      winning: price === winningCents,
      winning_delivery: random.chance(0.4),
      winning_price: cents(winningCents),
      rating_avg: random.int(0, 50) / 10,
      rating_count: String(random.int(0, 25_000)),
      seller_id: seller.id,
      seller_name: seller.name,
      url: `https://marketplace.repricer.example/offers/${offerId.toLowerCase()}`,
      last_seen_at: lastSeen(random),
    };
  });
};

export const demoProducts = (): DemoProduct[] => {
  const random = prng(SEED);
  return Array.from({ length: DEMO_PRODUCT_COUNT }, (_, index) => product(random, index));
};

/** The connector types, reference data an operator loads for every client (`connectors import`). */
export const demoConnectorTypeRecords = (): DemoRecord[] => DEMO_CONNECTOR_TYPES.map((data) => ({ type: 'connector_type' as const, data }));

/** The demo client's catalogue: products, then offers (its own and other sellers'). */
export const demoRecords = (): DemoRecord[] => {
  const products = demoProducts();
  // A second stream, so adding a product field does not reshuffle every offer.
  const random = prng(SEED + 1);
  let offerNumber = 0;
  const nextId = () => `OFR-${String(++offerNumber).padStart(6, '0')}`;
  const offers = products.flatMap((item, index) => offersFor(random, item, index, nextId));
  return [...products.map((data) => ({ type: 'product' as const, data })), ...offers.map((data) => ({ type: 'offer' as const, data }))];
};

/**
 * A create-repricer body that succeeds on the demo data: a stocked product sold on exactly one
 * connector (so no `connector` is needed), priced at retail with a profit the price can carry.
 */
export const sampleRepricerRequest = (): { product_code: string; preferred_price: number; preferred_profit: number } => {
  const chosen = demoProducts().find((p) => p.soh > 0 && p.fee_estimates !== null && Object.keys(p.fee_estimates).length === 1);
  if (!chosen) throw new Error('The demo data has no product with a single connector');
  const priceCents = Math.round(chosen.retail_price * 100);
  return { product_code: chosen.code, preferred_price: cents(priceCents), preferred_profit: cents(Math.round(priceCents / 10)) };
};

export const DEMO_REPRICER_COUNT = 3;
/** A fifth of the price as the preferred profit leaves a floor low enough to undercut most competitors. */
const DEMO_PROFIT_SHARE = 0.2;

export interface DemoRepricer {
  /** The create-repricer body. */
  readonly request: { readonly product_code: string; readonly preferred_price: number; readonly preferred_profit: number };
  /** Its floor, as the API computes it. */
  readonly minPrice: number;
  readonly ownOffer: DemoOffer;
  readonly competitors: readonly DemoOffer[];
  /** Its first decision. */
  readonly target: Target;
}

const engineOffer = (offer: DemoOffer): EngineOffer => ({
  offer_id: offer.offer_id,
  offer_price: offer.offer_price,
  offer_status: offer.offer_status,
  connector: DEMO_CONNECTOR,
  own: offer.seller_id === DEMO_SELLER_ID,
});

/** A demo repricer as the engine sees it. */
const engineRepricer = (request: DemoRepricer['request'], minPrice: number): EngineRepricer => ({
  enabled: true,
  min_price: minPrice,
  preferred_price: request.preferred_price,
  connector: DEMO_CONNECTOR,
});

/** The lowest price the engine ever sets for a repricer (its floor on the price grid): its answer to a competitor giving the product away. */
const lowestTarget = (repricer: EngineRepricer): number | undefined =>
  targetPrice(repricer, [{ offer_id: 'free', offer_price: 0, offer_status: BUYABLE, connector: repricer.connector, own: false }], DEFAULT_PRICE_STEP)?.price;

/**
 * The repricers `npm start` creates for the demo client: on the first products it sells on the
 * default connector alone that have competitors, and whose first decision undercuts them (so
 * it appears as a price change). The sample repricer's product is left free for the sample request.
 */
export const demoRepricers = (): DemoRepricer[] => {
  const sample = sampleRepricerRequest().product_code;
  const offers = demoRecords().flatMap((r) => (r.type === 'offer' ? [r.data] : []));
  const chosen: DemoRepricer[] = [];
  for (const item of demoProducts()) {
    if (chosen.length === DEMO_REPRICER_COUNT) break;
    const connectors = Object.keys(item.fee_estimates ?? {});
    if (item.code === sample || (connectors.length > 0 && connectors.join() !== DEMO_CONNECTOR)) continue;
    const ownOffer = offers.find((o) => o.product_code === item.code && o.seller_id === DEMO_SELLER_ID);
    const competitors = offers.filter((o) => o.product_code === item.code && o.seller_id !== DEMO_SELLER_ID);
    if (!ownOffer || competitors.length === 0) continue;
    const priceCents = Math.round(item.retail_price * 100);
    const request = { product_code: item.code, preferred_price: cents(priceCents), preferred_profit: cents(Math.round(priceCents * DEMO_PROFIT_SHARE)) };
    // Priced as the API prices the create body (its defaults applied) on the default connector.
    const computed = computedFields({ ...createRepricerBody.parse(request), preferred_price: request.preferred_price }, item, DEMO_CONNECTOR);
    if (!computed.ok) continue;
    const minPrice = computed.fields.min_price;
    const target = targetPrice(engineRepricer(request, minPrice), [ownOffer, ...competitors].map(engineOffer), DEFAULT_PRICE_STEP);
    if (target?.reason !== 'undercut' || target.price === ownOffer.offer_price) continue;
    chosen.push({ request, minPrice, ownOffer, competitors, target });
  }
  if (chosen.length < DEMO_REPRICER_COUNT) throw new Error(`The demo data has only ${chosen.length} products a repricer would undercut on`);
  return chosen;
};

/**
 * The walk-through's import (docs/examples/competitor-price.ndjson): the cheapest competitor of
 * a demo repricer's product lowers its price halfway to the repricer's floor, so the repricer
 * undercuts it again, still above the floor.
 */
export const demoCompetitorPriceDrop = (): { readonly repricer: DemoRepricer; readonly line: DemoRecord; readonly expected: Target } => {
  for (const repricer of demoRepricers()) {
    const engine = engineRepricer(repricer.request, repricer.minPrice);
    const floor = lowestTarget(engine);
    const lowest = repricer.competitors.find((o) => o.offer_id === repricer.target.lowest?.offerId);
    if (floor === undefined || !lowest) continue;
    // Halfway down to the floor, to the cent below.
    const dropped = centsToNumber((toCents(lowest.offer_price) + toCents(floor)) / 2n);
    const offer: DemoOffer = { ...lowest, offer_price: dropped, winning: true, winning_price: dropped };
    const others = repricer.competitors.filter((o) => o.offer_id !== lowest.offer_id);
    const expected = targetPrice(engine, [repricer.ownOffer, ...others, offer].map(engineOffer), DEFAULT_PRICE_STEP);
    if (expected?.reason === 'undercut' && expected.price < repricer.target.price) return { repricer, line: { type: 'offer', data: offer }, expected };
  }
  throw new Error('No demo repricer can be undercut again above its floor');
};
