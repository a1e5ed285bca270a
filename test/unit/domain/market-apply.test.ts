import {
  OFF_MARKET_STATUS,
  parseOwnSnapshots,
  planOffMarket,
  planOwnOffers,
  planOwnProducts,
  planPage,
  readPage,
  type KnownOffer,
  type OfferWrite,
  type PriceBelief,
} from '../../../lambdas/domain/market-apply.js';
import type { MarketOffer, ProductMarket } from '../../../lambdas/domain/storefront-page.js';
import { storefrontOffer } from '../../support/storefront-offers.js';

/**
 * The plans of a marketplace sync (docs/market-sync.md), without a table: what a page or an
 * own-offer list makes the service write, given what is stored.
 */
const NOW = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T10:05:00.000Z';
const connector = { uid: 'takealot', sellerId: 'me', storefrontUrl: 'https://www.takealot.example' };

const page = (...offers: MarketOffer[]): ProductMarket => ({
  productLineId: 'PLID1',
  offers,
  buyBoxShown: true,
  skipped: 0,
  url: 'https://www.takealot.example/p/PLID1',
});

/** The offer as the data layer would store the write (its version the write's time). */
const stored = (write: OfferWrite, scope: 'own' | 'other', at = NOW): KnownOffer => {
  const { product_code, connector: uid, basis: _basis, ...fields } = write;
  return { product_code, connector: uid, scope, fields, updated_at: at, price_at: at };
};

const ownOffer: KnownOffer = stored(
  {
    offer_id: '1001',
    offer_price: 100,
    offer_status: 'buyable',
    stock_status: 'in_stock',
    competitiveness: 'unknown',
    total_competitors: 0,
    winning: false,
    winning_delivery: false,
    winning_price: 0,
    rating_avg: 0,
    rating_count: '0',
    seller_id: 'me',
    seller_name: '',
    url: 'https://www.takealot.example',
    last_seen_at: null,
    product_code: 'SKU1',
    connector: 'takealot',
  },
  'own',
);
const asSynced = (offer: KnownOffer): PriceBelief => ({ price: offer.fields.offer_price, at: offer.price_at ?? offer.updated_at });

/** Reads the page and plans it over the stored offers. */
const planOf = (market: ProductMarket, offers: readonly KnownOffer[], believed = asSynced, now = NOW) => {
  const reading = readPage(market, { priceStep: 1 }, connector);
  if (reading.kind !== 'shown') throw new Error(`page not shown: ${reading.kind}`);
  const competitors = new Map(offers.filter((o) => o.scope === 'other').map((o) => [o.fields.offer_id, o] as const));
  return { reading, plan: planPage({ code: 'SKU1', connector, market, reading, offers, competitors, believed, now }) };
};

/** The stored offers after a plan's writes. */
const afterWrites = (before: readonly KnownOffer[], writes: readonly OfferWrite[], at: string): KnownOffer[] => {
  const byId = new Map(before.map((o) => [o.fields.offer_id, o] as const));
  for (const write of writes) byId.set(write.offer_id, stored(write, write.seller_id === 'me' ? 'own' : 'other', at));
  return [...byId.values()];
};

describe('planPage', () => {
  it('merges a seller listed twice into one competitor offer, under the id of the variant, with the buy box on the own offer', () => {
    // Arrange: s1 twice (70.00 and 65.00), s2 holds both slots.
    const market = page(
      storefrontOffer('me', 80),
      storefrontOffer('s1', 70),
      storefrontOffer('s1', 65),
      storefrontOffer('s2', 60, { bestPrice: true, fastestDelivery: true }),
    );

    // Act
    const { reading, plan } = planOf(market, [ownOffer]);

    // Assert
    expect(reading.view.merged).toBe(1);
    if (plan.kind !== 'write') throw new Error(plan.kind);
    const byId = new Map(plan.writes.map((w) => [w.offer_id, w] as const));
    expect([...byId.keys()].sort()).toEqual(['1001', 'takealot:PLID1:s1', 'takealot:PLID1:s2']);
    expect(byId.get('takealot:PLID1:s1')).toMatchObject({
      offer_price: 65,
      offer_status: 'buyable',
      total_competitors: 2,
      last_seen_at: NOW,
      basis: { readVersion: null },
    });
    expect(byId.get('1001')).toMatchObject({ offer_price: 100, winning: false, winning_price: 60, total_competitors: 2, seller_id: 'me' });
    expect(plan).toMatchObject({ considered: 3, left: 0, endBeliefs: [] });
  });

  it('marks a competitor that left the page off the market, once', () => {
    // Arrange: s1 and s2 stored from the last page; s2 is gone from this one.
    const first = planOf(page(storefrontOffer('me', 100), storefrontOffer('s1', 90, { bestPrice: true }), storefrontOffer('s2', 95)), [ownOffer]).plan;
    if (first.kind !== 'write') throw new Error(first.kind);
    const offers = afterWrites([ownOffer], first.writes, NOW);
    const market = page(storefrontOffer('me', 100), storefrontOffer('s1', 90, { bestPrice: true }));

    // Act
    const { plan } = planOf(market, offers, asSynced, LATER);

    // Assert
    if (plan.kind !== 'write') throw new Error(plan.kind);
    expect(plan.left).toBe(1);
    expect(plan.writes.find((w) => w.offer_id === 'takealot:PLID1:s2')).toMatchObject({
      offer_status: OFF_MARKET_STATUS,
      winning: false,
      winning_delivery: false,
      offer_price: 95,
      last_seen_at: NOW,
      basis: { readVersion: NOW },
    });
    const again = planOf(market, afterWrites(offers, plan.writes, LATER), asSynced, LATER).plan;
    expect(again).toMatchObject({ kind: 'write', writes: [], left: 0 });
  });

  it('writes nothing for a page that shows what is stored', () => {
    // Arrange
    const market = page(storefrontOffer('me', 100, { fastestDelivery: true }), storefrontOffer('s1', 90, { bestPrice: true }), storefrontOffer('s2', 95));
    const first = planOf(market, [ownOffer]).plan;
    if (first.kind !== 'write') throw new Error(first.kind);

    // Act
    const { plan } = planOf(market, afterWrites([ownOffer], first.writes, NOW), asSynced, LATER);

    // Assert
    expect(plan).toEqual({ kind: 'write', writes: [], endBeliefs: [], considered: 3, left: 0 });
  });

  it('ends the belief a page contradicts and records the own price as seen', () => {
    // Arrange: the service believes 100.00 live since NOW; the page shows 97.00 later.
    const market = page(storefrontOffer('me', 97, { bestPrice: true }), storefrontOffer('s1', 98));

    // Act
    const { plan } = planOf(market, [ownOffer], asSynced, LATER);

    // Assert
    if (plan.kind !== 'write') throw new Error(plan.kind);
    expect(plan.endBeliefs).toEqual([{ productCode: 'SKU1', offerId: '1001', contradicted: 100 }]);
    expect(plan.writes.find((w) => w.offer_id === '1001')).toMatchObject({ offer_price: 97, basis: { readVersion: NOW, priceSeen: true } });
  });

  it('leaves the page when its competitor offers are another product’s', () => {
    // Arrange
    const market = page(storefrontOffer('me', 100), storefrontOffer('s1', 90));
    const reading = readPage(market, { priceStep: 1 }, connector);
    if (reading.kind !== 'shown') throw new Error(reading.kind);
    const elsewhere = {
      ...ownOffer,
      product_code: 'SKU2',
      scope: 'other' as const,
      fields: { ...ownOffer.fields, offer_id: 'takealot:PLID1:s1', seller_id: 's1' },
    };

    // Act
    const plan = planPage({
      code: 'SKU1',
      connector,
      market,
      reading,
      offers: [ownOffer],
      competitors: new Map([['takealot:PLID1:s1', elsewhere]]),
      believed: asSynced,
      now: NOW,
    });

    // Assert
    expect(plan).toEqual({ kind: 'unknown', reason: 'variant_not_shown' });
  });
});

describe('readPage', () => {
  it.each<[string, ProductMarket, { variantId?: string; priceStep: number } | undefined, string]>([
    ['a malformed product line id', { ...page(storefrontOffer('s1', 10)), productLineId: '' }, { priceStep: 1 }, 'malformed'],
    ['a product not stored', page(storefrontOffer('s1', 10)), undefined, 'no-product'],
    ['no buy box', { ...page(), buyBoxShown: false }, { priceStep: 1 }, 'unseen'],
    ['another variant', { ...page(storefrontOffer('s1', 10)), variantId: 'TSIN2' }, { variantId: 'TSIN1', priceStep: 1 }, 'unknown'],
    ['no readable rival beside skipped entries', { ...page(storefrontOffer('me', 10)), skipped: 1 }, { priceStep: 1 }, 'unknown'],
  ])('says what %s is', (_, market, product, kind) => {
    expect(readPage(market, product, connector).kind).toBe(kind);
  });
});

describe('the own-offer plans', () => {
  const snapshot = { offerId: '1001', sku: 'SKU1', title: 'Kettle', sellingPrice: 100, status: 'buyable', stockOnHand: 3, shipsNow: true };

  it('marks an own offer the marketplace no longer has off the market, and one already marked not again', () => {
    // Act
    const [write] = planOffMarket([{ ...ownOffer, fields: { ...ownOffer.fields, winning: true } }], 'takealot', LATER);
    const again = planOffMarket([stored(write!, 'own', LATER)], 'takealot', LATER);

    // Assert
    expect(write).toMatchObject({ offer_id: '1001', offer_status: OFF_MARKET_STATUS, winning: false, winning_delivery: false, offer_price: 100 });
    expect(again).toEqual([]);
  });

  it('skips snapshots it cannot store and plans nothing for an unchanged list', () => {
    // Arrange
    const { valid, skipped, problems } = parseOwnSnapshots([snapshot, { ...snapshot, offerId: '1002' }, { ...snapshot, sellingPrice: 1.234, sku: 'X' }]);
    const first = planOwnOffers({ snapshots: valid, stored: new Map(), believed: asSynced, connector, imageUrl: connector.storefrontUrl, now: NOW });
    const storedOffers = new Map(first.writes.map((w) => [w.offer_id, stored(w, 'own')] as const));
    const products = planOwnProducts(valid, new Map(), connector.storefrontUrl, NOW);
    const storedProducts = new Map(products.create.map(({ draft }) => [draft.code, { record: { id: 1, ...draft } }] as const));

    // Act
    const again = planOwnOffers({ snapshots: valid, stored: storedOffers, believed: asSynced, connector, imageUrl: connector.storefrontUrl, now: LATER });
    const productsAgain = planOwnProducts(valid, storedProducts, connector.storefrontUrl, LATER);

    // Assert
    expect(skipped).toBe(2);
    expect(problems).toHaveLength(2);
    expect(first.writes).toHaveLength(1);
    expect(first.writes[0]).toMatchObject({ offer_price: 100, stock_status: 'in_stock', competitiveness: 'unknown', seller_id: 'me' });
    expect(again).toEqual({ writes: [], endBeliefs: [], considered: 1 });
    expect(productsAgain).toEqual({ create: [], update: [], unchanged: 1 });
  });
});
