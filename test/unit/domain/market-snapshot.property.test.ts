import fc from 'fast-check';
import { deriveMarketView } from '../../../lambdas/domain/market-snapshot.js';
import type { MarketOffer, ProductMarket } from '../../../lambdas/marketplace/port.js';
import { fcParameters, fcRuns } from '../../support/seed.js';

/**
 * Properties of the market derivation over random pages (a few sellers, some listed twice,
 * slot flags set at random, prices in whole cents) and steps.
 */
const cents = (amount: number) => Math.round(amount * 100);

const offerArb: fc.Arbitrary<MarketOffer> = fc.record({
  sellerId: fc.constantFrom('me', 's1', 's2', 's3', 's4', 'takealot'),
  sellerName: fc.constantFrom('A', 'B', ''),
  price: fc.integer({ min: 1, max: 50_000 }).map((c) => c / 100),
  inStock: fc.boolean(),
  leadtimeDays: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
  ratingAvg: fc.option(fc.constantFrom(0, 3.5, 5), { nil: undefined }),
  ratingCount: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined }),
  isMarketplaceItself: fc.boolean(),
  bestPrice: fc.boolean(),
  fastestDelivery: fc.boolean(),
});
const marketArb: fc.Arbitrary<ProductMarket> = fc
  .array(offerArb, { maxLength: 10 })
  .map((offers) => ({ productLineId: 'PLID1', offers, buyBoxShown: true, skipped: 0 }));
const stepArb = fc.constantFrom(0.01, 0.05, 1, 5);
const context = (priceStep: number) => ({ ownSellerId: 'me', priceStep });

describe('deriveMarketView properties', () => {
  it('does not depend on the order of the offers on the page', () => {
    fc.assert(
      fc.property(
        marketArb.chain((market) => fc.tuple(fc.constant(market), fc.shuffledSubarray([...market.offers], { minLength: market.offers.length }))),
        stepArb,
        ([market, shuffled], step) => {
          const { absentOffer: _a, ...view } = deriveMarketView(market, context(step));
          const { absentOffer: _b, ...again } = deriveMarketView({ ...market, offers: shuffled }, context(step));
          expect(again).toEqual(view);
        },
      ),
      fcParameters({ numRuns: fcRuns(200, 2000) }),
    );
  });

  it('gives the Best Price slot to exactly one offer when the page flags any, to none otherwise; winning_price is its price on every offer', () => {
    fc.assert(
      fc.property(marketArb, stepArb, (market, step) => {
        const view = deriveMarketView(market, context(step));
        const flagged = market.offers.some((o) => o.bestPrice);
        const winners = view.offers.filter((o) => o.winning);
        expect(winners).toHaveLength(flagged ? 1 : 0);
        expect(view.offers.filter((o) => o.winning_delivery)).toHaveLength(market.offers.some((o) => o.fastestDelivery) ? 1 : 0);
        expect(view.winningPrice).toBe(winners[0]?.price ?? null);
        for (const o of view.offers) expect(o.winning_price).toBe(view.winningPrice);
        expect(view.absentOffer(1).winning_price).toBe(view.winningPrice);
      }),
      fcParameters({ numRuns: fcRuns(200, 2000) }),
    );
  });

  it('is high exactly when the offer holds a slot or is within one step of the reference price', () => {
    fc.assert(
      fc.property(marketArb, stepArb, (market, step) => {
        const view = deriveMarketView(market, context(step));
        const lowest = Math.min(...view.offers.map((o) => cents(o.price)));
        const reference = view.winningPrice === null ? lowest : cents(view.winningPrice);
        for (const o of view.offers) {
          const within = cents(o.price) - reference <= cents(step);
          expect(o.competitiveness === 'high').toBe(o.winning || o.winning_delivery || within);
          if (o.competitiveness !== 'high') expect(o.competitiveness).toBe(cents(o.price) * 100 <= reference * 110 ? 'medium' : 'low');
        }
      }),
      fcParameters({ numRuns: fcRuns(200, 2000) }),
    );
  });

  it("counts the other sellers on the page as each offer's competitors, one offer per seller", () => {
    fc.assert(
      fc.property(marketArb, (market) => {
        const view = deriveMarketView(market, context(1));
        const sellers = new Set(market.offers.map((o) => o.sellerId));
        expect(view.offers.map((o) => o.sellerId)).toEqual([...sellers].sort());
        expect(view.merged).toBe(market.offers.length - sellers.size);
        for (const o of view.offers) expect(o.total_competitors).toBe(sellers.size - 1);
        expect(view.absentOffer(1).total_competitors).toBe([...sellers].filter((s) => s !== 'me').length);
      }),
      fcParameters({ numRuns: fcRuns(200, 2000) }),
    );
  });
});
