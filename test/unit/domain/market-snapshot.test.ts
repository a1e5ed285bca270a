import type { MarketOffer, ProductMarket } from '../../../lambdas/marketplace/port.js';
import { competitorOfferId, deriveMarketView, pageVariantKey, rivalsUnreadable, type PageOffer } from '../../../lambdas/domain/market-snapshot.js';
import { storefrontOffer } from '../../support/storefront-offers.js';

/**
 * The worked examples of docs/market-sync.md, one row each: a storefront page, the client's
 * seller id `me` and the connector's step, and the fields every offer gets.
 */
const page = (...offers: MarketOffer[]): ProductMarket => ({ productLineId: 'PLID100', offers, buyBoxShown: true, skipped: 0 });
const both = { bestPrice: true, fastestDelivery: true };

type Row = [seller: string, winning: boolean, delivery: boolean, winningPrice: number | null, competitors: number, competitiveness: string];
const rowsOf = (offers: readonly PageOffer[]): Row[] =>
  offers.map((o) => [o.sellerId, o.winning, o.winning_delivery, o.winning_price, o.total_competitors, o.competitiveness]);

describe('deriveMarketView: the worked examples of docs/market-sync.md', () => {
  it.each<[string, ProductMarket, number, Row[]]>([
    [
      'A. the own offer holds both slots',
      page(
        storefrontOffer('me', 100, both),
        storefrontOffer('s1', 95, { inStock: false, leadtimeDays: 7 }),
        storefrontOffer('s2', 108),
        storefrontOffer('s3', 120),
      ),
      1,
      [
        ['me', true, true, 100, 3, 'high'],
        ['s1', false, false, 100, 3, 'high'],
        ['s2', false, false, 100, 3, 'medium'],
        ['s3', false, false, 100, 3, 'low'],
      ],
    ],
    [
      'B. the slots split; 10 % of 89.00 is exactly 97.90',
      page(
        storefrontOffer('s1', 89, { bestPrice: true, inStock: false, leadtimeDays: 3 }),
        storefrontOffer('me', 95, { fastestDelivery: true }),
        storefrontOffer('s2', 90),
        storefrontOffer('s3', 98),
        storefrontOffer('s4', 97.9),
      ),
      1,
      [
        ['me', false, true, 89, 4, 'high'],
        ['s1', true, false, 89, 4, 'high'],
        ['s2', false, false, 89, 4, 'high'],
        ['s3', false, false, 89, 4, 'low'],
        ['s4', false, false, 89, 4, 'medium'],
      ],
    ],
    [
      'D. nobody holds Best Price: the lowest price is the reference, winning_price is null',
      page(
        storefrontOffer('s1', 30, { inStock: false, leadtimeDays: 5 }),
        storefrontOffer('s2', 31, { inStock: false, leadtimeDays: 2, fastestDelivery: true }),
        storefrontOffer('s3', 34),
      ),
      1,
      [
        ['s1', false, false, null, 2, 'high'],
        ['s2', false, true, null, 2, 'high'],
        ['s3', false, false, null, 2, 'low'],
      ],
    ],
    [
      'E. a seller listed twice is one offer, at its cheaper entry',
      page(storefrontOffer('s1', 70), storefrontOffer('s2', 60, both), storefrontOffer('s1', 65)),
      1,
      [
        ['s1', false, false, 60, 1, 'medium'],
        ['s2', true, true, 60, 1, 'high'],
      ],
    ],
    [
      'G. a step of 0.05: one step above is high, one cent more is medium',
      page(
        storefrontOffer('s1', 10, both),
        storefrontOffer('s2', 10.05),
        storefrontOffer('s3', 10.06),
        storefrontOffer('takealot', 11.01, { isMarketplaceItself: true }),
      ),
      0.05,
      [
        ['s1', true, true, 10, 3, 'high'],
        ['s2', false, false, 10, 3, 'high'],
        ['s3', false, false, 10, 3, 'medium'],
        ['takealot', false, false, 10, 3, 'low'],
      ],
    ],
  ])('%s', (_name, market, priceStep, expected) => {
    // Act
    const view = deriveMarketView(market, { ownSellerId: 'me', priceStep });

    // Assert
    expect(rowsOf(view.offers)).toEqual(expected);
  });

  it('C. an own offer the page does not show: no slot, every seller on the page a competitor', () => {
    // Act
    const view = deriveMarketView(page(storefrontOffer('s1', 50, both), storefrontOffer('s2', 60)), { ownSellerId: 'me', priceStep: 1 });

    // Assert
    expect(view.absentOffer(54)).toEqual({ winning: false, winning_delivery: false, winning_price: 50, total_competitors: 2, competitiveness: 'medium' });
    expect(view.absentOffer(51)).toMatchObject({ competitiveness: 'high' });
    expect(view.absentOffer(55.01)).toMatchObject({ competitiveness: 'low' });
  });

  it('E. counts the merged entry', () => {
    const view = deriveMarketView(page(storefrontOffer('s1', 70), storefrontOffer('s2', 60, both), storefrontOffer('s1', 65)), {
      ownSellerId: 'me',
      priceStep: 1,
    });
    expect(view).toMatchObject({ merged: 1, skipped: 0 });
    expect(view.offers[0]).toMatchObject({ sellerId: 's1', price: 65 });
  });

  it('F. entries with a malformed or unstorable value are skipped and counted, and count for nothing', () => {
    // Prepare
    const market = page(
      storefrontOffer('s1', 40, both),
      storefrontOffer('s2', 12.345),
      storefrontOffer('s3', 41, { sellerName: 'Bad\u0000name' }),
      storefrontOffer('s4', 42, { ratingAvg: 7 }),
      storefrontOffer('s5', Number.NaN),
      storefrontOffer('', 43),
      storefrontOffer('s6', 44, { sellerName: 'Lone \ud800' }),
      storefrontOffer('s7', 45, { ratingCount: 1.5 }),
      storefrontOffer('s'.repeat(46), 46),
    );

    // Act
    const view = deriveMarketView(market, { ownSellerId: 'me', priceStep: 1 });

    // Assert
    expect(view.skipped).toBe(8);
    expect(rowsOf(view.offers)).toEqual([['s1', true, true, 40, 0, 'high']]);
  });

  it('carries the page fields: stock status, seller name, ratings as numeric text', () => {
    const view = deriveMarketView(
      page(storefrontOffer('me', 10, { ...both, ratingAvg: 4.5, ratingCount: 210 }), storefrontOffer('s1', 11, { inStock: false, sellerName: 'Shop' })),
      {
        ownSellerId: 'me',
        priceStep: 1,
      },
    );
    expect(view.offers).toEqual([
      expect.objectContaining({ sellerId: 'me', own: true, stock_status: 'in_stock', seller_name: 'Seller me', rating_avg: 4.5, rating_count: '210' }),
      expect.objectContaining({ sellerId: 's1', own: false, stock_status: 'lead_time', seller_name: 'Shop', rating_avg: 0, rating_count: '0' }),
    ]);
  });

  it('keeps one holder per slot when the page flags several: the cheapest Best Price, the fastest delivery', () => {
    const view = deriveMarketView(
      page(
        storefrontOffer('s1', 20, { bestPrice: true, fastestDelivery: true, inStock: false, leadtimeDays: 4 }),
        storefrontOffer('s2', 19, { bestPrice: true, fastestDelivery: true, inStock: false, leadtimeDays: 2 }),
        storefrontOffer('s3', 25, { fastestDelivery: true }),
      ),
      { ownSellerId: 'me', priceStep: 1 },
    );
    expect(rowsOf(view.offers)).toEqual([
      ['s1', false, false, 19, 2, 'high'],
      ['s2', true, false, 19, 2, 'high'],
      ['s3', false, true, 19, 2, 'high'],
    ]);
  });

  it('an empty page: no winner, nothing to be behind', () => {
    const view = deriveMarketView(page(), { ownSellerId: 'me', priceStep: 1 });
    expect(view).toMatchObject({ winningPrice: null, offers: [] });
    expect(view.absentOffer(12)).toEqual({ winning: false, winning_delivery: false, winning_price: null, total_competitors: 0, competitiveness: 'high' });
  });

  it('names competitor offers by connector, product line and seller', () => {
    expect(competitorOfferId('takealot', 'PLID100', 's1')).toBe('takealot:PLID100:s1');
  });
});

describe('pageVariantKey: whether a page shows the product’s variant, and the key of its offers', () => {
  const line = (variant: { variantId?: string; multiVariant?: boolean }) => ({ productLineId: 'PLID100', ...variant });

  it.each([
    ['a page of one variant naming none, a product of unknown variant', line({}), undefined, 'PLID100'],
    ['a page of one variant naming none, a product of a known variant', line({}), 'T1', 'PLID100'],
    ['a page of one variant naming the product’s', line({ variantId: 'T1' }), 'T1', 'PLID100'],
    ['a page of one variant naming one, a product of unknown variant', line({ variantId: 'T1' }), undefined, 'PLID100'],
    ['a page of several variants showing the product’s', line({ variantId: 'T2', multiVariant: true }), 'T2', 'PLID100~T2'],
  ])('%s: shown, keyed by %#', (_, market, productVariant, key) => {
    expect(pageVariantKey(market, productVariant)).toBe(key);
  });

  it.each([
    ['a page of one variant naming another', line({ variantId: 'T1' }), 'T2'],
    ['a page of several variants showing another', line({ variantId: 'T1', multiVariant: true }), 'T2'],
    ['a page of several variants showing none', line({ multiVariant: true }), 'T2'],
    ['a page of several variants, a product of unknown variant', line({ variantId: 'T1', multiVariant: true }), undefined],
  ])('%s: variant_not_shown', (_, market, productVariant) => {
    expect(pageVariantKey(market, productVariant)).toBeUndefined();
  });

  it('keys two variants of one line apart, so neither page ever names the other’s offers', () => {
    const a = pageVariantKey(line({ variantId: 'T1', multiVariant: true }), 'T1')!;
    const b = pageVariantKey(line({ variantId: 'T2', multiVariant: true }), 'T2')!;
    expect(competitorOfferId('takealot', a, 's1')).not.toBe(competitorOfferId('takealot', b, 's1'));
  });
});

describe('rivalsUnreadable: entries left out and no rival read is not alone', () => {
  const derive = (market: ProductMarket) => deriveMarketView(market, { ownSellerId: 'me', priceStep: 1 });
  const own = storefrontOffer('me', 50, { bestPrice: true, fastestDelivery: true });

  it('says so of a page showing the own offer alone beside entries the adapter left out', () => {
    expect(rivalsUnreadable(derive(page(own)), 2)).toBe(true);
  });

  it('says so of a page whose only rival has an unstorable value', () => {
    const view = derive(page(own, storefrontOffer('s1', 12.345)));
    expect([view.skipped, rivalsUnreadable(view, 0)]).toEqual([1, true]);
  });

  it('says so of a page where nothing at all could be read', () => {
    expect(rivalsUnreadable(derive(page()), 1)).toBe(true);
  });

  it('does not of a page with a readable rival, nor of one alone with nothing left out', () => {
    expect(rivalsUnreadable(derive(page(own, storefrontOffer('s1', 60))), 3)).toBe(false);
    expect(rivalsUnreadable(derive(page(own)), 0)).toBe(false);
  });
});
