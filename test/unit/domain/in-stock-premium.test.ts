import {
  DEFAULT_IN_STOCK_PREMIUM,
  inStockPremium,
  observePremium,
  premiumBoundsOf,
  samePremium,
  type InStockPremium,
  type PremiumPageOffer,
} from '../../../lambdas/domain/in-stock-premium.js';

const inStock = (price: number, winning = false): PremiumPageOffer => ({ price, stock_status: 'in_stock', winning });
const leadtime = (price: number, winning = false): PremiumPageOffer => ({ price, stock_status: 'lead_time', winning });
const page = (...offers: PremiumPageOffer[]) => ({ offers });
const interval = (low_percent: number, high_percent: number, observations: number): InStockPremium => ({ low_percent, high_percent, observations });

describe('observePremium', () => {
  it.each([
    // [rule, interval before, page, interval after]
    [
      'an in-stock holder over a cheaper leadtime offer: at least the gap, rounded down',
      DEFAULT_IN_STOCK_PREMIUM,
      page(inStock(105, true), leadtime(100)),
      interval(4.76, 10, 1),
    ],
    [
      'a leadtime holder over a dearer in-stock offer: at most the gap, rounded up',
      DEFAULT_IN_STOCK_PREMIUM,
      page(leadtime(100, true), inStock(106)),
      interval(0, 5.67, 1),
    ],
    ['an exact gap is not rounded (lower bound)', DEFAULT_IN_STOCK_PREMIUM, page(inStock(200, true), leadtime(190)), interval(5, 10, 1)],
    ['an exact gap is not rounded (upper bound)', DEFAULT_IN_STOCK_PREMIUM, page(leadtime(190, true), inStock(200)), interval(0, 5, 1)],
    [
      'an in-stock holder beat every leadtime offer: the cheapest one bounds',
      DEFAULT_IN_STOCK_PREMIUM,
      page(leadtime(105), inStock(110, true), leadtime(100)),
      interval(9.09, 10, 1),
    ],
    [
      'a leadtime holder beat every in-stock offer: the cheapest one bounds',
      DEFAULT_IN_STOCK_PREMIUM,
      page(inStock(108), leadtime(100, true), inStock(103)),
      interval(0, 2.92, 1),
    ],
    [
      'a leadtime holder over an in-stock offer at its price: no premium at all (a tie may go either way)',
      DEFAULT_IN_STOCK_PREMIUM,
      page(leadtime(100, true), inStock(100)),
      interval(0, 0, 1),
    ],
    ['prices in cents are exact', DEFAULT_IN_STOCK_PREMIUM, page(inStock(105.5, true), leadtime(100.25)), interval(4.97, 10, 1)],
    ['each narrowing read counts', interval(4.76, 10, 1), page(leadtime(100, true), inStock(106)), interval(4.76, 5.67, 2)],
    ['a read that narrows one end keeps the other', interval(3, 6, 4), page(inStock(105, true), leadtime(100)), interval(4.76, 6, 5)],
    [
      'a contradicting read restarts from the default narrowed by it alone',
      interval(4.76, 5.67, 2),
      page(inStock(110, true), leadtime(100)),
      interval(9.09, 10, 1),
    ],
    ['a contradicting read on the high side restarts the same way', interval(5, 8, 3), page(leadtime(100, true), inStock(103)), interval(0, 2.92, 1)],
    [
      'a read beyond the default: the default gives way to the page',
      DEFAULT_IN_STOCK_PREMIUM,
      page(inStock(114, true), leadtime(100)),
      interval(12.28, 100, 1),
    ],
    ['a read beyond the default after learning: the same', interval(4.76, 5.67, 2), page(inStock(114, true), leadtime(100)), interval(12.28, 100, 1)],
  ])('%s', (_rule, before, read, after) => {
    expect(observePremium(before, read)).toEqual(after);
  });

  it.each([
    ['no holder on the page', page(inStock(105), leadtime(100))],
    ['an in-stock holder cheaper than every leadtime offer', page(inStock(99, true), leadtime(100))],
    ['an in-stock holder among in-stock offers only', page(inStock(100, true), inStock(101))],
    ['a leadtime holder among leadtime offers only', page(leadtime(100, true), leadtime(101))],
    ['a holder alone', page(leadtime(100, true))],
    ['an in-stock holder dearer than another in-stock offer (no premium explains it)', page(inStock(105, true), inStock(100), leadtime(90))],
    ['a leadtime holder dearer than another leadtime offer (no premium explains it)', page(leadtime(105, true), leadtime(100), inStock(110))],
    ['a leadtime holder dearer than an in-stock offer (no premium explains it)', page(leadtime(105, true), inStock(100))],
    ['a read inside the interval that does not narrow it', page(inStock(102, true), leadtime(100))],
  ])('leaves the interval as it was (the same object, nothing to write): %s', (_rule, read) => {
    const before = interval(1.97, 7, 3);
    expect(observePremium(before, read)).toBe(before);
  });

  it('reads the holder from `winning` alone: two holders say nothing', () => {
    expect(premiumBoundsOf(page(inStock(105, true), leadtime(100, true)))).toBe('silent');
  });

  it('says why a page is left out', () => {
    expect(premiumBoundsOf(page(leadtime(105, true), inStock(100)))).toBe('unexplained');
    expect(premiumBoundsOf(page(inStock(99, true), leadtime(100)))).toBe('silent');
    expect(premiumBoundsOf(page(inStock(105, true), leadtime(100)))).toEqual({ low: 476n, high: 10_000n });
  });
});

describe('inStockPremium (stored and shown)', () => {
  it('takes the default and a learned interval', () => {
    expect(inStockPremium.parse(DEFAULT_IN_STOCK_PREMIUM)).toEqual(DEFAULT_IN_STOCK_PREMIUM);
    expect(inStockPremium.parse(interval(4.76, 5.67, 2))).toEqual(interval(4.76, 5.67, 2));
  });

  it.each([
    ['low above high', interval(6, 5, 1)],
    ['three decimals', interval(4.765, 5, 1)],
    ['above 100 %', interval(0, 100.01, 1)],
    ['negative', interval(-1, 5, 1)],
    ['fractional observations', interval(0, 5, 1.5)],
  ])('refuses %s', (_what, value) => {
    expect(inStockPremium.safeParse(value).success).toBe(false);
  });

  it('samePremium compares every field', () => {
    expect(samePremium(interval(1, 2, 3), interval(1, 2, 3))).toBe(true);
    expect(samePremium(interval(1, 2, 3), interval(1, 2, 4))).toBe(false);
    expect(samePremium(interval(1, 2, 3), interval(1.01, 2, 3))).toBe(false);
    expect(samePremium(interval(1, 2, 3), interval(1, 2.01, 3))).toBe(false);
  });
});
