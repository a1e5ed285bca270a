import { readFileSync } from 'node:fs';
import {
  DEMO_CONNECTOR,
  DEMO_CONNECTOR_TYPES,
  DEMO_PRODUCT_COUNT,
  DEMO_REPRICER_COUNT,
  DEMO_SELLER_ID,
  demoCompetitorPriceDrop,
  demoConnectorTypeRecords,
  demoRecords,
  demoRepricers,
  sampleRepricerRequest,
  type DemoOffer,
  type DemoProduct,
} from '../../../tools/local/demo-data.js';
import { DEFAULT_OPTIONS } from '../../../tools/market/options.js';
import { validateImport } from '../../../lambdas/domain/import-records.js';
import { createRepricerBody } from '../../../lambdas/domain/create-repricer.js';
import { computePricing } from '../../../lambdas/domain/pricing.js';
import { decide, type EngineOffer } from '../../../lambdas/domain/repricing.js';

const records = demoRecords();
const products = records.flatMap((r) => (r.type === 'product' ? [r.data] : [])) as DemoProduct[];
const offers = records.flatMap((r) => (r.type === 'offer' ? [r.data] : [])) as DemoOffer[];
const connectors = demoConnectorTypeRecords().flatMap((r) => (r.type === 'connector_type' ? [r.data] : []));
const hasCents = (value: number) => Math.round(value * 100) % 100 !== 0;

describe('the demo seller', () => {
  it("is the marketplace simulator's seller, so its own offers on the simulator's pages are its own", () => {
    expect(DEMO_SELLER_ID).toBe(DEFAULT_OPTIONS.sellerId);
  });
});

describe('demoRecords', () => {
  it('is the same on every call (seeded, no Math.random)', () => {
    expect(demoRecords()).toEqual(records);
  });

  it('passes the import validation as a whole: the catalogue as a client import, the connector types as reference data', () => {
    expect(validateImport(records, 'catalogue').problems).toEqual([]);
    expect(validateImport(demoConnectorTypeRecords(), 'connectors').problems).toEqual([]);
  });

  it('lists products first, then offers, and no connector type in the client catalogue', () => {
    const order = records.map((r) => r.type);
    expect(order).not.toContain('connector_type');
    expect(order.lastIndexOf('product')).toBeLessThan(order.indexOf('offer'));
  });

  it('has the four connector types with https logos, Takealot in whole rand', () => {
    expect(connectors.map((c) => c.uid)).toEqual(['amazon', 'ebay', 'bol', 'takealot']);
    expect(connectors.find((c) => c.uid === 'takealot')?.price_step).toBe(1);
    expect(connectors.every((c) => c.logo.startsWith('https://'))).toBe(true);
    expect(connectors).toEqual(DEMO_CONNECTOR_TYPES);
  });

  it('has 50 products with varied fee estimates, stock and multi-line descriptions', () => {
    expect(products).toHaveLength(DEMO_PRODUCT_COUNT);
    const connectorCounts = products.map((p) => (p.fee_estimates ? Object.keys(p.fee_estimates).length : 0));
    expect(connectorCounts).toContain(0);
    expect(connectorCounts).toContain(1);
    expect(connectorCounts).toContain(2);
    expect(products.some((p) => p.soh === 0)).toBe(true);
    expect(products.some((p) => p.soh > 0)).toBe(true);
    expect(products.every((p) => p.description.includes('\n'))).toBe(true);
    expect(products.some((p) => hasCents(p.retail_price))).toBe(true);
    const uids = new Set(connectors.map((c) => c.uid));
    expect(products.flatMap((p) => Object.keys(p.fee_estimates ?? {})).every((uid) => uids.has(uid))).toBe(true);
  });

  it("has 200+ offers on the demo products, own and other sellers' on the same products", () => {
    expect(offers.length).toBeGreaterThanOrEqual(200);
    const codes = new Set(products.map((p) => p.code));
    expect(offers.every((o) => codes.has(o.product_code))).toBe(true);
    expect(new Set(offers.map((o) => o.offer_id)).size).toBe(offers.length);
    const ownCodes = new Set(offers.filter((o) => o.seller_id === DEMO_SELLER_ID).map((o) => o.product_code));
    const sharedCodes = offers.filter((o) => o.seller_id !== DEMO_SELLER_ID && ownCodes.has(o.product_code));
    expect(ownCodes.size).toBeGreaterThan(0);
    expect(sharedCodes.length).toBeGreaterThan(0);
  });

  it('spans competitiveness, competitor counts and priced-in-cents offers', () => {
    expect(new Set(offers.map((o) => o.competitiveness))).toEqual(new Set(['high', 'medium', 'low']));
    const competitors = offers.map((o) => o.total_competitors);
    expect(Math.min(...competitors)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...competitors)).toBeLessThanOrEqual(30);
    expect(new Set(competitors).size).toBeGreaterThan(15);
    expect(offers.some((o) => hasCents(o.offer_price))).toBe(true);
    expect(offers.some((o) => o.last_seen_at === null)).toBe(true);
  });

  it('marks the cheapest offer of each product as winning at the winning price', () => {
    for (const code of new Set(offers.map((o) => o.product_code))) {
      const group = offers.filter((o) => o.product_code === code);
      const cheapest = Math.min(...group.map((o) => o.offer_price));
      expect(group.every((o) => o.winning_price === cheapest && o.winning === (o.offer_price === cheapest))).toBe(true);
    }
  });
});

describe('sampleRepricerRequest', () => {
  it('names a stocked demo product with one connector and a profit below the price', () => {
    const sample = sampleRepricerRequest();
    const product = products.find((p) => p.code === sample.product_code);
    expect(product?.soh).toBeGreaterThan(0);
    expect(Object.keys(product?.fee_estimates ?? {})).toHaveLength(1);
    expect(sample.preferred_profit).toBeGreaterThan(0);
    expect(sample.preferred_profit).toBeLessThan(sample.preferred_price / 2);
  });
});

/** The demo offers of a product as the engine sees them (every demo offer is on the default connector). */
const engineOffers = (code: string, replaced?: DemoOffer): EngineOffer[] =>
  offers
    .filter((o) => o.product_code === code)
    .map((o) => (replaced && o.offer_id === replaced.offer_id ? replaced : o))
    .map((o) => ({
      offer_id: o.offer_id,
      offer_price: o.offer_price,
      offer_status: o.offer_status,
      connector: DEMO_CONNECTOR,
      own: o.seller_id === DEMO_SELLER_ID,
    }));

describe('demoRepricers', () => {
  const repricers = demoRepricers();
  const boundsOf = (request: (typeof repricers)[number]['request']) => {
    const item = products.find((p) => p.code === request.product_code)!;
    const pricing = computePricing({
      preferredPrice: request.preferred_price,
      preferredProfit: request.preferred_profit,
      minProfit: 0,
      soh: item.soh,
      feeEstimates: item.fee_estimates,
      connectorUid: DEMO_CONNECTOR,
    });
    if (!pricing.ok) throw new Error(pricing.reason);
    return { enabled: true, min_price: pricing.value.minPrice, preferred_price: request.preferred_price, connector: DEMO_CONNECTOR };
  };

  it("are valid create bodies for distinct products sold on the default connector only, none the sample request's", () => {
    expect(repricers).toHaveLength(DEMO_REPRICER_COUNT);
    const codes = repricers.map((r) => r.request.product_code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).not.toContain(sampleRepricerRequest().product_code);
    for (const { request } of repricers) {
      expect(createRepricerBody.safeParse(request).success).toBe(true);
      const fees = products.find((p) => p.code === request.product_code)?.fee_estimates;
      expect(Object.keys(fees ?? {}).filter((uid) => uid !== DEMO_CONNECTOR)).toEqual([]);
    }
  });

  it("each decides a first price change: the demo seller's offer undercuts a competitor of its product", () => {
    for (const { request, target } of repricers) {
      const all = engineOffers(request.product_code);
      expect(all.some((o) => o.own)).toBe(true);
      expect(all.some((o) => !o.own)).toBe(true);
      const decisions = decide(boundsOf(request), all, 1, () => undefined);
      expect(decisions).toHaveLength(1);
      expect(decisions[0]).toMatchObject({ price: target.price, reason: 'undercut' });
      expect(decisions[0]!.price).toBeLessThan(decisions[0]!.lowest!.price);
    }
  });
});

describe('demoCompetitorPriceDrop', () => {
  const drop = demoCompetitorPriceDrop();
  const offer = drop.line.data as DemoOffer;

  it("lowers the price of a competitor of a demo repricer's product, and is what docs/examples/competitor-price.ndjson holds", () => {
    const before = offers.find((o) => o.offer_id === offer.offer_id)!;
    expect(before.seller_id).not.toBe(DEMO_SELLER_ID);
    expect(before.product_code).toBe(drop.repricer.request.product_code);
    expect(offer.offer_price).toBeLessThan(before.offer_price);
    expect(validateImport([drop.line], 'catalogue').problems).toEqual([]);
    const shipped = readFileSync(new URL('../../../docs/examples/competitor-price.ndjson', import.meta.url), 'utf8');
    expect(shipped).toBe(`${JSON.stringify(drop.line)}\n`);
  });

  it('makes the repricer undercut it again, lower than its first decision and above its floor', () => {
    const { repricer } = drop;
    const bounds = { enabled: true, min_price: repricer.minPrice, preferred_price: repricer.request.preferred_price, connector: DEMO_CONNECTOR };
    const [decision] = decide(bounds, engineOffers(repricer.request.product_code, offer), 1, () => repricer.target.price);
    expect(decision).toMatchObject({ price: drop.expected.price, reason: 'undercut', lowest: { price: offer.offer_price, offerId: offer.offer_id } });
    expect(decision!.price).toBeLessThan(repricer.target.price);
    expect(decision!.price).toBeGreaterThanOrEqual(repricer.minPrice);
  });
});
