import { explainTarget } from '../../../lambdas/domain/explain-target.js';
import { previewRepricer } from '../../../lambdas/domain/repricer-preview.js';
import { targetPrice, type EngineOffer, type EngineRepricer } from '../../../lambdas/domain/repricing.js';

/** The explanation of a target (docs/repricing.md, "Preview and explanation"), and the preview built on it. */
const APPROACH = { buybox_approach: 'cheapest', repricer_approach: 'fixed' } as const;
const repricer = (overrides: Partial<EngineRepricer> = {}) => ({
  ...APPROACH,
  enabled: true,
  min_price: 30,
  preferred_price: 60,
  connector: 'amazon',
  ...overrides,
});

const competitor = (offer_id: string, offer_price: number, overrides: Partial<EngineOffer> = {}): EngineOffer => ({
  offer_id,
  offer_price,
  offer_status: 'buyable',
  connector: 'amazon',
  own: false,
  seller_id: `seller-of-${offer_id}`,
  rating_avg: 4.5,
  stock_status: 'in_stock',
  ...overrides,
});
const own = (offer_price: number, overrides: Partial<EngineOffer> = {}): EngineOffer => ({
  offer_id: 'OWN-1',
  offer_price,
  offer_status: 'buyable',
  connector: 'amazon',
  own: true,
  ...overrides,
});

describe('explainTarget', () => {
  it.each<[string, Partial<EngineRepricer>, Partial<EngineOffer>]>([
    ['exclude_seller_ids', { exclude_seller_ids: ['s-9'] }, { seller_id: 's-9' }],
    ['min_competitor_rating', { min_competitor_rating: 4 }, { rating_avg: 3.9 }],
    ['competitor_stock', { competitor_stock: 'in_stock' as const }, { stock_status: 'lead_time' as const }],
    ['max_competitor_leadtime_days', { max_competitor_leadtime_days: 0 }, { stock_status: 'lead_time' as const }],
    ['not_buyable', {}, { offer_status: 'not_buyable' }],
    ['other_connector', {}, { connector: 'ebay' }],
  ])('names %s as what excluded an offer, and competes with the next one', (by, filters, excludedFields) => {
    // Arrange
    const offers = [own(55), competitor('CHEAP', 40, excludedFields), competitor('NEXT', 50)];

    // Act
    const explanation = explainTarget(repricer(filters), offers, 1);

    // Assert
    expect(explanation.competitors).toEqual({
      considered: [{ offer_id: 'NEXT', seller_id: 'seller-of-NEXT', price: 50 }],
      excluded: [{ offer_id: 'CHEAP', seller_id: excludedFields.seller_id ?? 'seller-of-CHEAP', price: 40, by }],
    });
    expect(explanation.raw_target).toBe(49);
    expect(explanation).toMatchObject({ final_price: 49, reason: 'undercut' });
  });

  it('names the first filter in the repricer order when several exclude an offer', () => {
    // Act
    const explanation = explainTarget(
      repricer({ exclude_seller_ids: ['s-9'], min_competitor_rating: 4 }),
      [competitor('BOTH', 40, { seller_id: 's-9', rating_avg: 1 })],
      1,
    );

    // Assert
    expect(explanation.competitors.excluded.map((offer) => offer.by)).toEqual(['exclude_seller_ids']);
  });

  it('leaves the own offers out of both lists', () => {
    // Act
    const explanation = explainTarget(repricer(), [own(55), own(45, { offer_id: 'OWN-2', connector: 'ebay' })], 1);

    // Assert
    expect(explanation.competitors).toEqual({ considered: [], excluded: [] });
  });

  it('lists the competitors by price, then offer id, whatever the input order', () => {
    // Act
    const explanation = explainTarget(repricer(), [competitor('B', 50), competitor('C', 45), competitor('A', 50)], 1);

    // Assert
    expect(explanation.competitors.considered.map((offer) => offer.offer_id)).toEqual(['C', 'A', 'B']);
  });

  it.each([
    // [case, repricer, competitor price, step, raw target, floor applied, ceiling applied, final, reason]
    ['undercut between the bounds: neither applied', {}, 45.5, 1, 44, false, false, 44, 'undercut'],
    ['under the floor: the floor, rounded up to the grid', { min_price: 30.4 }, 20, 1, 19, true, false, 31, 'floor'],
    ['above the ceiling: the ceiling, rounded down to the grid', { preferred_price: 60.5 }, 80, 1, 79, false, true, 60, 'ceiling'],
    ['step 0.05', { min_price: 30.41 }, 45.03, 0.05, 44.95, false, false, 44.95, 'undercut'],
  ] as const)('%s', (_, overrides, price, step, rawTarget, floorApplied, ceilingApplied, finalPrice, reason) => {
    // Arrange
    const subject = repricer(overrides);
    const offers = [competitor('C-1', price)];

    // Act
    const explanation = explainTarget(subject, offers, step);

    // Assert
    expect(explanation.raw_target).toBe(rawTarget);
    expect(explanation.bounds.map(({ bound, applied }) => [bound, applied])).toEqual([
      ['floor', floorApplied],
      ['ceiling', ceilingApplied],
    ]);
    expect(explanation).toMatchObject({ final_price: finalPrice, reason });
    expect(targetPrice(subject, offers, step)).toMatchObject({ price: finalPrice, reason });
  });

  it('applies the floor before the ceiling, each on the step grid', () => {
    // Act
    const explanation = explainTarget(repricer({ min_price: 30.41, preferred_price: 60.04 }), [], 0.05);

    // Assert
    expect(explanation.bounds).toEqual([
      { bound: 'floor', value: 30.45, applied: false },
      { bound: 'ceiling', value: 60, applied: true },
    ]);
  });

  it('alone: no raw target, the ceiling is the price', () => {
    // Act
    const explanation = explainTarget(repricer(), [own(55), competitor('GONE', 20, { offer_status: 'not_buyable' })], 1);

    // Assert
    expect(explanation).toEqual({
      approach: APPROACH,
      competitors: { considered: [], excluded: [{ offer_id: 'GONE', seller_id: 'seller-of-GONE', price: 20, by: 'not_buyable' }] },
      competitor_counts: { considered: 0, excluded: 1 },
      own_stock_status: null,
      in_stock_premium: null,
      price_step: 1,
      steps: [],
      raw_target: null,
      bounds: [
        { bound: 'floor', value: 30, applied: false },
        { bound: 'ceiling', value: 60, applied: true },
      ],
      final_price: 60,
      reason: 'no_competition',
    });
  });

  it('no grid price between floor and ceiling: no final price and no reason, as the engine decides nothing', () => {
    // Act
    const explanation = explainTarget(repricer({ min_price: 30.2, preferred_price: 30.8 }), [competitor('C-1', 40)], 1);

    // Assert
    expect(explanation).toMatchObject({ raw_target: 39, final_price: null, reason: null });
    expect(explanation.bounds.map((bound) => bound.applied)).toEqual([false, false]);
  });
});

describe('previewRepricer', () => {
  const subject = { ...repricer(), id: 7, product: { code: 'SKU-1' } };

  it("says per own offer on the repricer's connector what the engine would decide, and skips what it would skip", () => {
    // Arrange
    const offers = [
      own(55),
      own(44, { offer_id: 'OWN-AT-TARGET' }),
      own(50, { offer_id: 'OWN-DECIDED' }),
      own(70, { offer_id: 'OWN-ELSEWHERE', connector: 'ebay' }),
      competitor('C-1', 45),
    ];
    const lastDecided = (offerId: string) => (offerId === 'OWN-DECIDED' ? 44 : undefined);

    // Act
    const preview = previewRepricer(subject, offers, 1, lastDecided);

    // Assert
    expect(preview).toMatchObject({ repricer_id: 7, product_code: 'SKU-1', enabled: true });
    expect(preview.offers).toEqual([
      { offer_id: 'OWN-1', current_price: 55, would_decide: 44 },
      { offer_id: 'OWN-AT-TARGET', current_price: 44, would_decide: null },
      { offer_id: 'OWN-DECIDED', current_price: 50, would_decide: null },
    ]);
    expect(preview.target).toEqual(explainTarget(subject, offers, 1));
  });

  it('previews a disabled repricer as if enabled, and says it is disabled', () => {
    // Act
    const preview = previewRepricer({ ...subject, enabled: false }, [own(55), competitor('C-1', 45)], 1, () => undefined);

    // Assert
    expect(preview.enabled).toBe(false);
    expect(preview.offers).toEqual([{ offer_id: 'OWN-1', current_price: 55, would_decide: 44 }]);
  });

  it('decides nothing when no grid price lies between the bounds', () => {
    // Act
    const preview = previewRepricer({ ...subject, min_price: 30.2, preferred_price: 30.8 }, [own(55), competitor('C-1', 45)], 1, () => undefined);

    // Assert
    expect(preview.offers).toEqual([{ offer_id: 'OWN-1', current_price: 55, would_decide: null }]);
  });
});
