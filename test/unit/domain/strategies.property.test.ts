import fc from 'fast-check';
import { canonicalPriceChange, storedPriceChange } from '../../../lambdas/data/price-changes/list.js';
import { BUYBOX_APPROACHES } from '../../../lambdas/domain/approaches.js';
import { MAX_LISTED_COMPETITORS, replayExplanation } from '../../../lambdas/domain/explanation.js';
import type { InStockPremium } from '../../../lambdas/domain/in-stock-premium.js';
import type { PriceChange } from '../../../lambdas/domain/records.js';
import { previewRepricer } from '../../../lambdas/domain/repricer-preview.js';
import { decide, decideExplained, planTarget, targetPrice, type EngineOffer, type EngineRepricer } from '../../../lambdas/domain/repricing.js';
import { decideBuyBox, type ListedOffer } from '../../../tools/market/buy-box.js';
import { fcParameters, fcRuns } from '../../support/seed.js';

/**
 * Every approach with every competitor filter (docs/repricing.md, "Approaches"): the properties
 * of the engine's one plan, over random repricers, filters, offers, premiums and steps. Amounts
 * are drawn in whole cents and checked in whole cents.
 */
const cents = (amount: number) => Math.round(amount * 100);
const money = (value: number) => value / 100;

const stepCents = fc.oneof(fc.constantFrom(1, 5, 10, 25, 50, 100, 500), fc.integer({ min: 1, max: 1_000 }));
const SELLERS = ['s1', 's2', 's3', 's4'];
const stock = fc.constantFrom('in_stock' as const, 'lead_time' as const, undefined);

const filtersArb = fc.oneof(
  fc.constant({}),
  fc.record({
    exclude_seller_ids: fc.subarray(SELLERS),
    min_competitor_rating: fc.option(fc.integer({ min: 0, max: 10 }).map((half) => half / 2)),
    competitor_stock: fc.constantFrom('any' as const, 'in_stock' as const),
    max_competitor_leadtime_days: fc.option(fc.integer({ min: 0, max: 3 })),
  }),
);

const repricerArb: fc.Arbitrary<EngineRepricer> = fc
  .record({
    min: fc.integer({ min: 1, max: 100_000 }),
    spread: fc.integer({ min: 0, max: 50_000 }),
    approach: fc.constantFrom(...BUYBOX_APPROACHES),
    filters: filtersArb,
  })
  .map(({ min, spread, approach, filters }) => ({
    enabled: true,
    min_price: money(min),
    preferred_price: money(min + spread),
    connector: 'amazon',
    buybox_approach: approach,
    ...filters,
  }));

const offerArb: fc.Arbitrary<EngineOffer> = fc
  .record({
    offer_id: fc.string({ minLength: 1, maxLength: 6 }),
    offer_price: fc.integer({ min: 0, max: 200_000 }).map(money),
    offer_status: fc.constantFrom('buyable', 'buyable', 'buyable', 'not_buyable'),
    connector: fc.constantFrom('amazon', 'amazon', 'amazon', 'ebay'),
    seller_id: fc.constantFrom(...SELLERS),
    rating_avg: fc.integer({ min: 0, max: 50 }).map((tenths) => tenths / 10),
    stock_status: stock,
  })
  .map(({ stock_status, ...offer }) => ({ ...offer, own: false, ...(stock_status ? { stock_status } : {}) }));

const ownArb = (price: number, stock_status: 'in_stock' | 'lead_time' | undefined): EngineOffer => ({
  offer_id: 'OWN',
  offer_price: money(price),
  offer_status: 'buyable',
  connector: 'amazon',
  own: true,
  ...(stock_status ? { stock_status } : {}),
});

/** Competitors (up to 14, so the explanation's lists are sometimes cut) and the own offer. */
const marketArb = fc
  .tuple(fc.uniqueArray(offerArb, { maxLength: 14, selector: (offer) => offer.offer_id }), fc.integer({ min: 0, max: 200_000 }), stock)
  .map(([competitors, ownPrice, ownStock]) => [...competitors.filter((offer) => offer.offer_id !== 'OWN'), ownArb(ownPrice, ownStock)]);

/** An interval of percents exact to two decimals, 0-40 %. */
const premiumArb: fc.Arbitrary<InStockPremium> = fc
  .tuple(fc.integer({ min: 0, max: 4_000 }), fc.integer({ min: 0, max: 4_000 }), fc.nat({ max: 50 }))
  .map(([a, b, observations]) => ({ low_percent: Math.min(a, b) / 100, high_percent: Math.max(a, b) / 100, observations }));

const shuffled = <T>(items: readonly T[], keys: fc.Stream<number>): T[] =>
  items
    .map((item) => ({ item, key: keys.next().value as number }))
    .sort((a, b) => a.key - b.key)
    .map(({ item }) => item);

const runs = () => fcParameters({ numRuns: fcRuns(400, 2000) });

describe('every approach with every filter', () => {
  it('lies in [min_price, preferred_price] on the step grid, and exists exactly when the range holds a grid price', () => {
    fc.assert(
      fc.property(repricerArb, marketArb, stepCents, premiumArb, (repricer, offers, step, premium) => {
        // Act
        const target = targetPrice(repricer, offers, money(step), { premium });

        // Assert
        const floor = Math.ceil(cents(repricer.min_price) / step) * step;
        const ceiling = Math.floor(cents(repricer.preferred_price) / step) * step;
        if (floor > ceiling) return target === undefined;
        if (target === undefined) return false;
        const price = cents(target.price);
        return price >= cents(repricer.min_price) && price <= cents(repricer.preferred_price) && price % step === 0 && money(price) === target.price;
      }),
      runs(),
    );
  });

  it('plans the same for the same inputs, in any order, every time', () => {
    fc.assert(
      fc.property(repricerArb, marketArb, stepCents, premiumArb, fc.infiniteStream(fc.nat()), (repricer, offers, step, premium, keys) => {
        // Act
        const first = planTarget(repricer, offers, money(step), { premium });
        const again = planTarget(repricer, structuredClone(offers), money(step), { premium });
        const reordered = planTarget(repricer, shuffled(offers, keys), money(step), { premium });

        // Assert
        expect(again).toEqual(first);
        expect(reordered).toEqual(first);
      }),
      runs(),
    );
  });

  it('is idempotent: once decided (or once the marketplace has the price), the same market decides nothing', () => {
    fc.assert(
      fc.property(repricerArb, marketArb, stepCents, premiumArb, (repricer, offers, step, premium) => {
        // Arrange
        const context = { premium };
        const first = decide(repricer, offers, money(step), () => undefined, context);
        const recorded = new Map(first.map((decision) => [decision.offerId, decision.price]));
        const applied = offers.map((offer) => (recorded.has(offer.offer_id) ? { ...offer, offer_price: recorded.get(offer.offer_id)! } : offer));

        // Act
        const replayed = decide(repricer, offers, money(step), (offerId) => recorded.get(offerId), context);
        const afterApply = decide(repricer, applied, money(step), () => undefined, context);

        // Assert
        expect(replayed).toEqual([]);
        expect(afterApply).toEqual([]);
      }),
      runs(),
    );
  });

  it('ignores what the filters exclude: moving an excluded competitor changes nothing', () => {
    fc.assert(
      fc.property(
        repricerArb,
        marketArb,
        stepCents,
        premiumArb,
        fc.nat(),
        fc.integer({ min: 0, max: 200_000 }),
        (repricer, offers, step, premium, which, price) => {
          // Arrange
          const base = planTarget(repricer, offers, money(step), { premium });
          const excludedIds = new Set(
            offers.filter((offer) => !offer.own && !base.explanation.competitors.considered.some((c) => c.offer_id === offer.offer_id)).map((o) => o.offer_id),
          );
          // Only offers the plan certainly did not consider: listed as excluded, or beyond the listed considered ones by count.
          const excluded = offers.filter(
            (offer) => excludedIds.has(offer.offer_id) && base.explanation.competitors.excluded.some((e) => e.offer_id === offer.offer_id),
          );
          fc.pre(excluded.length > 0);
          const moving = excluded[which % excluded.length]!;
          const moved = offers.map((offer) => (offer === moving ? { ...offer, offer_price: money(price) } : offer));

          // Act & Assert
          expect(targetPrice(repricer, moved, money(step), { premium })).toEqual(base.target);
        },
      ),
      runs(),
    );
  });

  it('explains itself: the stored and the previewed explanation are the decision plan, and replayed reach its final price', () => {
    fc.assert(
      fc.property(repricerArb, marketArb, stepCents, premiumArb, (repricer, offers, step, premium) => {
        // Arrange
        const context = { premium };
        const { decisions, explanation } = decideExplained(repricer, offers, money(step), () => undefined, context);
        const preview = previewRepricer(
          { ...repricer, id: 1, product: { code: 'P' }, buybox_approach: repricer.buybox_approach!, repricer_approach: 'fixed' },
          offers,
          money(step),
          () => undefined,
          undefined,
          context,
        );
        const record: PriceChange = {
          id: 1,
          uid: '9b0e6c2d-1f4a-4e8b-a3c5-7d2f1e0b9a61',
          repricer_id: 1,
          offer_id: 'OWN',
          product_code: 'P',
          connector: 'amazon',
          old_price: 0,
          new_price: explanation!.final_price ?? 0,
          reason: explanation!.reason ?? 'undercut',
          lowest_competitor_price: null,
          competitor_offer_id: null,
          status: 'pending',
          status_reason: null,
          sent_price: null,
          sent_at: null,
          applied_at: null,
          explanation: explanation!,
          created_at: '2026-11-22T10:15:30.123Z',
          updated_at: '2026-11-22T10:15:30.123Z',
        };

        // Act
        const stored = storedPriceChange.parse(structuredClone(canonicalPriceChange({ entity: 'priceChange', sv: 2, record }))).record.explanation!;
        const replayed = replayExplanation(stored);

        // Assert
        expect(stored).toEqual(explanation);
        expect(preview.target).toEqual(explanation);
        expect(replayed).toEqual({ raw: explanation!.raw_target, final: explanation!.final_price });
        for (const decision of decisions) expect(decision.price).toBe(explanation!.final_price);
        expect(explanation!.competitors.considered.length).toBeLessThanOrEqual(MAX_LISTED_COMPETITORS);
        expect(explanation!.competitors.excluded.length).toBeLessThanOrEqual(MAX_LISTED_COMPETITORS);
        expect(explanation!.competitor_counts.considered + explanation!.competitor_counts.excluded).toBe(offers.filter((offer) => !offer.own).length);
      }),
      runs(),
    );
  });
});

describe("the marketplace's rule (tools/market/buy-box.ts) agrees", () => {
  /** The own offer at the target, listed last (a tie would go to the rival), among the rivals it competes with. */
  const page = (offers: readonly EngineOffer[], considered: ReadonlySet<string>, price: number): ListedOffer[] =>
    [...offers.filter((offer) => considered.has(offer.offer_id)), { ...offers.find((offer) => offer.own)!, offer_price: price }].map((offer, i) => ({
      id: offer.offer_id,
      sku: offer.offer_id,
      price: offer.offer_price,
      in_stock: offer.stock_status === 'in_stock',
      leadtime_days: offer.stock_status === 'in_stock' ? 0 : 3,
      listed_at: offer.own ? 1_000 : i,
      seller: { seller_id: i, display_name: '', rating_avg: 0, rating_count: 0, is_takealot: false },
    }));
  /** Every offer says its stock mode (the marketplace's rule needs it). */
  const knownStock = fc
    .tuple(marketArb, fc.infiniteStream(fc.boolean()))
    .map(([offers, flips]) => offers.map((offer) => ({ ...offer, stock_status: offer.stock_status ?? (flips.next().value ? 'in_stock' : 'lead_time') })));
  /** Wide bounds, so most targets are the strategy's own. */
  const wide = (repricer: EngineRepricer): EngineRepricer => ({ ...repricer, min_price: 0.01, preferred_price: 5_000 });

  it('buybox: a target the bounds did not move wins Best Price for every premium inside the interval', () => {
    fc.assert(
      fc.property(repricerArb, knownStock, stepCents, premiumArb, fc.nat(), (repricer, offers, step, premium, pick) => {
        // Arrange: a true premium in whole percents inside the interval
        const low = Math.ceil(premium.low_percent);
        const high = Math.floor(premium.high_percent);
        fc.pre(low <= high);
        const truth = low + (pick % (high - low + 1));
        const subject = { ...wide(repricer), buybox_approach: 'buybox' as const };
        const { target, explanation } = planTarget(subject, offers, money(step), { premium });
        fc.pre(target !== undefined && (target.reason === 'undercut' || target.reason === 'in_stock_premium'));
        fc.pre(explanation.competitor_counts.considered <= MAX_LISTED_COMPETITORS);
        const considered = new Set(explanation.competitors.considered.map((c) => c.offer_id));

        // Act
        const outcome = decideBuyBox(page(offers, considered, target!.price), truth);

        // Assert
        expect(outcome.bestPrice?.id).toBe('OWN');
      }),
      runs(),
    );
  });

  it('fastest_delivery: an in-stock own offer at a target the bounds did not move holds Fastest Delivery', () => {
    fc.assert(
      fc.property(repricerArb, knownStock, stepCents, (repricer, offers, step) => {
        // Arrange
        const subject = { ...wide(repricer), buybox_approach: 'fastest_delivery' as const };
        fc.pre(offers.find((offer) => offer.own)?.stock_status === 'in_stock');
        const { target, explanation } = planTarget(subject, offers, money(step));
        fc.pre(target?.reason === 'undercut' || target?.reason === 'no_competition');
        fc.pre(explanation.competitor_counts.considered <= MAX_LISTED_COMPETITORS);
        const considered = new Set(explanation.competitors.considered.map((c) => c.offer_id));

        // Act
        const outcome = decideBuyBox(page(offers, considered, target!.price), 0);

        // Assert
        expect(outcome.fastestDelivery?.id).toBe('OWN');
      }),
      runs(),
    );
  });
});
