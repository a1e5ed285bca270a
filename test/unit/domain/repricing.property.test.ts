import { replayExplanation } from '../../../lambdas/domain/explanation.js';
import fc from 'fast-check';
import { explainTarget } from '../../../lambdas/domain/explain-target.js';
import { MAX_LISTED_COMPETITORS } from '../../../lambdas/domain/explanation.js';
import { decide, targetPrice, type EngineOffer, type EngineRepricer } from '../../../lambdas/domain/repricing.js';
import { fcParameters, fcRuns } from '../../support/seed.js';

/**
 * The engine's properties (issue "Automated repricing", item 2, and the competitor filters of
 * docs/repricing.md), over random repricers, filters, competitors and steps. Amounts are drawn
 * in whole cents and checked in whole cents.
 */
const cents = (amount: number) => Math.round(amount * 100);
const money = (value: number) => value / 100;

const stepCents = fc.oneof(fc.constantFrom(1, 5, 10, 25, 50, 100, 500), fc.integer({ min: 1, max: 1_000 }));

const SELLERS = ['s1', 's2', 's3', 's4'];

/** Competitor filters, the defaults (which filter nothing) as often as not. */
const filtersArb = fc.oneof(
  fc.constant({}),
  fc.record({
    exclude_seller_ids: fc.subarray(SELLERS),
    min_competitor_rating: fc.option(fc.integer({ min: 0, max: 10 }).map((half) => half / 2)),
    competitor_stock: fc.constantFrom('any' as const, 'in_stock' as const),
    max_competitor_leadtime_days: fc.option(fc.integer({ min: 0, max: 3 })),
  }),
);

const unfilteredRepricerArb: fc.Arbitrary<EngineRepricer> = fc
  .record({ min: fc.integer({ min: 1, max: 100_000 }), spread: fc.integer({ min: 0, max: 50_000 }), enabled: fc.constant(true) })
  .map(({ min, spread, enabled }) => ({ enabled, min_price: money(min), preferred_price: money(min + spread), connector: 'amazon' }));
const repricerArb: fc.Arbitrary<EngineRepricer> = fc.tuple(unfilteredRepricerArb, filtersArb).map(([repricer, filters]) => ({ ...repricer, ...filters }));

const offerArb: fc.Arbitrary<EngineOffer> = fc.record({
  offer_id: fc.string({ minLength: 1, maxLength: 6 }),
  offer_price: fc.integer({ min: 0, max: 200_000 }).map(money),
  offer_status: fc.constantFrom('buyable', 'buyable', 'buyable', 'not_buyable'),
  connector: fc.constantFrom('amazon', 'amazon', 'amazon', 'ebay'),
  own: fc.constantFrom(false, false, false, true),
  seller_id: fc.constantFrom(...SELLERS),
  rating_avg: fc.integer({ min: 0, max: 50 }).map((tenths) => tenths / 10),
  stock_status: fc.constantFrom('in_stock' as const, 'lead_time' as const),
});
const offersArb = fc.uniqueArray(offerArb, { maxLength: 14, selector: (offer) => offer.offer_id });

/** The filter rules as docs/repricing.md states them, written out here as the oracle. */
const passes = (repricer: EngineRepricer, offer: EngineOffer): boolean =>
  !(repricer.exclude_seller_ids ?? []).includes(offer.seller_id!) &&
  (repricer.min_competitor_rating == null || offer.rating_avg! >= repricer.min_competitor_rating) &&
  (repricer.competitor_stock !== 'in_stock' || offer.stock_status === 'in_stock') &&
  // A leadtime offer ships in at least 1 day; its days are not stored.
  (repricer.max_competitor_leadtime_days == null || offer.stock_status === 'in_stock' || repricer.max_competitor_leadtime_days >= 1);
const competitorsOf = (repricer: EngineRepricer, offers: readonly EngineOffer[]) =>
  offers.filter((offer) => !offer.own && offer.connector === repricer.connector && offer.offer_status === 'buyable' && passes(repricer, offer));
const gridFloor = (value: number, step: number) => Math.floor(value / step) * step;
const gridCeil = (value: number, step: number) => Math.ceil(value / step) * step;

describe('targetPrice properties', () => {
  it('lies in [min_price, preferred_price] on the step grid, and exists exactly when the range holds a grid price', () => {
    fc.assert(
      fc.property(repricerArb, offersArb, stepCents, (repricer, offers, step) => {
        // Act
        const target = targetPrice(repricer, offers, money(step));

        // Assert
        const floor = gridCeil(cents(repricer.min_price), step);
        const ceiling = gridFloor(cents(repricer.preferred_price), step);
        if (floor > ceiling) return target === undefined;
        if (target === undefined) return false;
        const price = cents(target.price);
        return price >= cents(repricer.min_price) && price <= cents(repricer.preferred_price) && price % step === 0 && money(price) === target.price;
      }),
      fcParameters({ numRuns: fcRuns(500, 2500) }),
    );
  });

  it('is below the lowest competitor whenever a grid price in the range is, and says why it is where it is', () => {
    fc.assert(
      fc.property(repricerArb, offersArb, stepCents, (repricer, offers, step) => {
        // Arrange
        const floor = gridCeil(cents(repricer.min_price), step);
        const ceiling = gridFloor(cents(repricer.preferred_price), step);
        fc.pre(floor <= ceiling);
        const competitors = competitorsOf(repricer, offers);

        // Act
        const target = targetPrice(repricer, offers, money(step))!;

        // Assert
        const price = cents(target.price);
        if (competitors.length === 0) return target.reason === 'no_competition' && price === ceiling && target.lowest === undefined;
        const lowest = Math.min(...competitors.map((offer) => cents(offer.offer_price)));
        const wanted = gridFloor(lowest - step, step);
        expect(target.lowest?.price).toBe(money(lowest));
        expect(competitors.some((offer) => offer.offer_id === target.lowest?.offerId && cents(offer.offer_price) === lowest)).toBe(true);
        if (floor < lowest) expect(price).toBeLessThan(lowest);
        const expected = wanted < floor ? [floor, 'floor'] : wanted > ceiling ? [ceiling, 'ceiling'] : [wanted, 'undercut'];
        expect([price, target.reason]).toEqual(expected);
        return true;
      }),
      fcParameters({ numRuns: fcRuns(500, 2500) }),
    );
  });

  it('gives the same result for the same inputs, in any order, every time', () => {
    fc.assert(
      fc.property(repricerArb, offersArb, stepCents, fc.infiniteStream(fc.nat()), (repricer, offers, step, keys) => {
        // Arrange
        const shuffled = offers
          .map((offer) => ({ offer, key: keys.next().value as number }))
          .sort((a, b) => a.key - b.key)
          .map(({ offer }) => offer);

        // Act
        const first = targetPrice(repricer, offers, money(step));
        const second = targetPrice(repricer, structuredClone(offers), money(step));
        const reordered = targetPrice(repricer, shuffled, money(step));

        // Assert
        expect(second).toEqual(first);
        expect(reordered).toEqual(first);
      }),
      fcParameters({ numRuns: fcRuns(300, 1500) }),
    );
  });

  it("moves monotonically with a competitor's price: raising it never lowers the target, lowering it never raises it", () => {
    fc.assert(
      fc.property(
        repricerArb,
        fc.uniqueArray(offerArb, { minLength: 1, maxLength: 12, selector: (offer) => offer.offer_id }),
        stepCents,
        fc.nat(),
        fc.integer({ min: 0, max: 200_000 }),
        (repricer, offers, step, which, newPrice) => {
          // Arrange
          const index = which % offers.length;
          const moved = offers.map((offer, i) => (i === index ? { ...offer, offer_price: money(newPrice) } : offer));
          const before = targetPrice(repricer, offers, money(step));
          fc.pre(before !== undefined);

          // Act
          const after = targetPrice(repricer, moved, money(step))!;

          // Assert
          const was = cents(offers[index]!.offer_price);
          if (newPrice >= was) expect(after.price).toBeGreaterThanOrEqual(before.price);
          if (newPrice <= was) expect(after.price).toBeLessThanOrEqual(before.price);
        },
      ),
      fcParameters({ numRuns: fcRuns(500, 2500) }),
    );
  });
});

describe('competitor filter properties', () => {
  const unfiltered = ({ exclude_seller_ids, min_competitor_rating, competitor_stock, max_competitor_leadtime_days, ...rest }: EngineRepricer) => rest;

  it('decides as if the excluded competitors were not there: they never influence the target', () => {
    fc.assert(
      fc.property(repricerArb, offersArb, stepCents, (repricer, offers, step) => {
        // Arrange
        const kept = offers.filter((offer) => offer.own || passes(repricer, offer));

        // Act
        const filtered = targetPrice(repricer, offers, money(step));
        const withoutExcluded = targetPrice(unfiltered(repricer), kept, money(step));

        // Assert
        expect(filtered).toEqual(withoutExcluded);
      }),
      fcParameters({ numRuns: fcRuns(500, 2500) }),
    );
  });

  it("ignores an excluded competitor's price, however low or high it moves", () => {
    fc.assert(
      fc.property(repricerArb, offersArb, stepCents, fc.nat(), fc.integer({ min: 0, max: 200_000 }), (repricer, offers, step, which, newPrice) => {
        // Arrange
        const excluded = offers.filter((offer) => !offer.own && !passes(repricer, offer));
        fc.pre(excluded.length > 0);
        const moving = excluded[which % excluded.length]!;
        const moved = offers.map((offer) => (offer === moving ? { ...offer, offer_price: money(newPrice) } : offer));

        // Act & Assert
        expect(targetPrice(repricer, moved, money(step))).toEqual(targetPrice(repricer, offers, money(step)));
      }),
      fcParameters({ numRuns: fcRuns(300, 1500) }),
    );
  });

  it('with the default filters, decides exactly as a repricer without filters', () => {
    fc.assert(
      fc.property(unfilteredRepricerArb, offersArb, stepCents, (repricer, offers, step) => {
        // Arrange
        const defaults: EngineRepricer = {
          ...repricer,
          exclude_seller_ids: [],
          min_competitor_rating: null,
          competitor_stock: 'any',
          max_competitor_leadtime_days: null,
        };

        // Act & Assert
        expect(targetPrice(defaults, offers, money(step))).toEqual(targetPrice(repricer, offers, money(step)));
      }),
      fcParameters({ numRuns: fcRuns(300, 1500) }),
    );
  });

  it('never lowers the target by excluding more: a stricter filter keeps the price or raises it', () => {
    fc.assert(
      fc.property(unfilteredRepricerArb, filtersArb, offersArb, stepCents, fc.constantFrom(...SELLERS), (repricer, filters, offers, step, seller) => {
        // Arrange
        const loose: EngineRepricer = { ...repricer, ...filters };
        const strict: EngineRepricer = { ...loose, exclude_seller_ids: [...(loose.exclude_seller_ids ?? []), seller] };
        const before = targetPrice(loose, offers, money(step));
        fc.pre(before !== undefined);

        // Act
        const after = targetPrice(strict, offers, money(step))!;

        // Assert
        expect(after.price).toBeGreaterThanOrEqual(before.price);
      }),
      fcParameters({ numRuns: fcRuns(300, 1500) }),
    );
  });
});

describe('decide properties', () => {
  it('decides nothing the second time: with its decisions recorded, the same inputs decide nothing', () => {
    fc.assert(
      fc.property(repricerArb, offersArb, fc.integer({ min: 0, max: 200_000 }), stepCents, (repricer, competitors, ownPrice, step) => {
        // Arrange
        const offers: EngineOffer[] = [
          ...competitors,
          { offer_id: 'OWN', offer_price: money(ownPrice), offer_status: 'buyable', connector: 'amazon', own: true },
        ];
        const first = decide(repricer, offers, money(step), () => undefined);
        const recorded = new Map(first.map((decision) => [decision.offerId, decision.price]));

        // Act
        const second = decide(repricer, offers, money(step), (offerId) => recorded.get(offerId));

        // Assert
        expect(second).toEqual([]);
        expect(first.every((decision) => decision.price !== decision.oldPrice)).toBe(true);
      }),
      fcParameters({ numRuns: fcRuns(300, 1500) }),
    );
  });
});

describe('explainTarget properties', () => {
  const APPROACH = { buybox_approach: 'cheapest', repricer_approach: 'fixed' } as const;

  it("ends at the engine's target, and accounts for every other seller's offer once (the cheapest 10 of each list named, all counted)", () => {
    fc.assert(
      fc.property(repricerArb, offersArb, stepCents, (repricer, offers, step) => {
        // Act
        const explanation = explainTarget({ ...repricer, ...APPROACH }, offers, money(step));

        // Assert
        const target = targetPrice(repricer, offers, money(step));
        expect(explanation.final_price).toBe(target?.price ?? null);
        expect(explanation.reason).toBe(target?.reason ?? null);
        const { considered, excluded } = explanation.competitors;
        const competitors = competitorsOf(repricer, offers);
        const others = offers.filter((offer) => !offer.own);
        expect(explanation.competitor_counts).toEqual({ considered: competitors.length, excluded: others.length - competitors.length });
        expect(considered).toHaveLength(Math.min(competitors.length, MAX_LISTED_COMPETITORS));
        expect(excluded).toHaveLength(Math.min(others.length - competitors.length, MAX_LISTED_COMPETITORS));
        const ids = new Set(competitors.map((offer) => offer.offer_id));
        expect(considered.every((offer) => ids.has(offer.offer_id))).toBe(true);
        expect(excluded.every((offer) => !ids.has(offer.offer_id) && others.some((other) => other.offer_id === offer.offer_id))).toBe(true);
        // The cheapest are the ones named.
        const cheapestLeftOut = Math.min(
          ...competitors.filter((offer) => !considered.some((c) => c.offer_id === offer.offer_id)).map((o) => cents(o.offer_price)),
        );
        expect(considered.every((offer) => cents(offer.price) <= cheapestLeftOut)).toBe(true);
        if (target?.lowest) expect(considered[0]).toMatchObject({ offer_id: target.lowest.offerId, price: target.lowest.price });
      }),
      fcParameters({ numRuns: fcRuns(500, 2500) }),
    );
  });

  it('reaches the final price from the raw target through the bounds it says it applied, in order', () => {
    fc.assert(
      fc.property(repricerArb, offersArb, stepCents, (repricer, offers, step) => {
        // Act
        const { raw_target, bounds, final_price } = explainTarget({ ...repricer, ...APPROACH }, offers, money(step));

        // Assert
        fc.pre(final_price !== null);
        const [floor, ceiling] = bounds;
        expect(bounds.map((bound) => bound.bound)).toEqual(['floor', 'ceiling']);
        let price = raw_target === null ? cents(ceiling!.value) : cents(raw_target);
        if (floor!.applied) price = cents(floor!.value);
        else if (ceiling!.applied) price = cents(ceiling!.value);
        expect(price).toBe(cents(final_price));
        // A bound is applied exactly when the undercut lies beyond it (alone: the ceiling).
        if (raw_target !== null) {
          expect(floor!.applied).toBe(cents(raw_target) < cents(floor!.value));
          expect(ceiling!.applied).toBe(!floor!.applied && cents(raw_target) > cents(ceiling!.value));
        } else expect([floor!.applied, ceiling!.applied]).toEqual([false, true]);
      }),
      fcParameters({ numRuns: fcRuns(500, 2500) }),
    );
  });

  it('never wants a price over the rrp: the lower of the ceiling and the rrp holds, the rrp listed last and replayed', () => {
    fc.assert(
      fc.property(repricerArb, offersArb, stepCents, fc.integer({ min: 1, max: 20_000 }), (repricer, offers, step, rrpCents) => {
        // Act
        const explanation = explainTarget({ ...repricer, ...APPROACH }, offers, money(step), { rrp: money(rrpCents) });

        // Assert
        const [floor, ceiling, rrp] = explanation.bounds;
        expect(explanation.bounds.map((bound) => bound.bound)).toEqual(['floor', 'ceiling', 'rrp']);
        // On the grid, rounded down: never above the rrp itself.
        expect(cents(rrp!.value) % step).toBe(0);
        expect(cents(rrp!.value)).toBeLessThanOrEqual(rrpCents);
        expect(replayExplanation(explanation).final).toBe(explanation.final_price);
        if (explanation.final_price === null) {
          expect(Math.min(cents(ceiling!.value), cents(rrp!.value))).toBeLessThan(cents(floor!.value));
          return;
        }
        expect(cents(explanation.final_price)).toBeLessThanOrEqual(Math.min(rrpCents, cents(ceiling!.value)));
        expect(cents(explanation.final_price)).toBeGreaterThanOrEqual(cents(floor!.value));
        // At most one bound set the price, and the rrp only where it lies under the ceiling.
        expect(explanation.bounds.filter((bound) => bound.applied).length).toBeLessThanOrEqual(1);
        if (rrp!.applied) expect(cents(rrp!.value)).toBeLessThan(cents(ceiling!.value));
      }),
      fcParameters({ numRuns: fcRuns(500, 2500) }),
    );
  });
});
