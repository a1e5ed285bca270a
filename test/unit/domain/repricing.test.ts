import { decide, planTarget, targetPrice, type EngineOffer, type EngineRepricer } from '../../../lambdas/domain/repricing.js';
import { replayExplanation } from '../../../lambdas/domain/explanation.js';

/** The engine (docs/repricing.md, "The decision rules"), one rule a row. */
const repricer = (overrides: Partial<EngineRepricer> = {}): EngineRepricer => ({
  enabled: true,
  min_price: 30,
  preferred_price: 60,
  connector: 'amazon',
  ...overrides,
});

let sequence = 0;
const competitor = (offer_price: number, overrides: Partial<EngineOffer> = {}): EngineOffer => ({
  offer_id: `C-${++sequence}`,
  offer_price,
  offer_status: 'buyable',
  connector: 'amazon',
  own: false,
  seller_id: `seller-${sequence}`,
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
const never = () => undefined;

describe('targetPrice', () => {
  it.each([
    // [case, repricer, competitor prices, step, price, reason]
    ['no competition: the preferred price', {}, [], 1, 60, 'no_competition'],
    ['no competition, preferred price off the grid: rounded down to it', { preferred_price: 59.99 }, [], 1, 59, 'no_competition'],
    ['no competition, step 0.05', { preferred_price: 59.99 }, [], 0.05, 59.95, 'no_competition'],
    ['undercut: one step under the lowest competitor', {}, [45, 50], 1, 44, 'undercut'],
    ['undercut of an off-grid competitor: rounded down to the grid', {}, [45.5], 1, 44, 'undercut'],
    ['undercut with step 0.05', {}, [45.03], 0.05, 44.95, 'undercut'],
    ['undercut with step 0.05 of an on-grid competitor', {}, [45.05], 0.05, 45, 'undercut'],
    ['undercut with step 1.00 of a whole price', {}, [41], 1, 40, 'undercut'],
    ['undercut exactly onto the floor', {}, [31], 1, 30, 'undercut'],
    ['undercut exactly onto the ceiling', {}, [61], 1, 60, 'undercut'],
    ['floor: the lowest competitor is under the floor', {}, [20], 1, 30, 'floor'],
    ['floor off the grid: rounded up to it (never under the floor)', { min_price: 30.4 }, [20], 1, 31, 'floor'],
    ['floor off the grid with step 0.05', { min_price: 30.41 }, [20], 0.05, 30.45, 'floor'],
    ['floor: undercutting would go one step under it', { min_price: 30.4 }, [31.5], 1, 31, 'floor'],
    ['ceiling: the lowest competitor is far above the preferred price', {}, [80], 1, 60, 'ceiling'],
    ['ceiling off the grid: rounded down to it', { preferred_price: 60.5 }, [80], 1, 60, 'ceiling'],
    ['ceiling with step 0.05', { preferred_price: 60.04 }, [80], 0.05, 60, 'ceiling'],
    ['competitor under one step: the floor', { min_price: 0.01 }, [0.5], 1, 1, 'floor'],
  ] as const)('%s', (_, overrides, prices, step, price, reason) => {
    // Act
    const target = targetPrice(
      repricer(overrides),
      prices.map((p) => competitor(p)),
      step,
    );

    // Assert
    expect(target).toMatchObject({ price, reason });
  });

  it('names the lowest competitor, the smallest offer id among equal prices, whatever the input order', () => {
    // Arrange
    const offers = [competitor(47, { offer_id: 'B' }), competitor(45, { offer_id: 'Z' }), competitor(45, { offer_id: 'A' })];

    // Act
    const forward = targetPrice(repricer(), offers, 1);
    const backward = targetPrice(repricer(), [...offers].reverse(), 1);

    // Assert
    expect(forward).toEqual({ price: 44, reason: 'undercut', lowest: { price: 45, offerId: 'A' } });
    expect(backward).toEqual(forward);
  });

  it.each([
    ['on another connector', { connector: 'ebay' }],
    ['not buyable', { offer_status: 'out_of_stock' }],
    ["the client's own", { own: true }],
  ])('ignores a competitor %s', (_, overrides) => {
    // Act
    const target = targetPrice(repricer(), [competitor(20, overrides), competitor(45)], 1);

    // Assert
    expect(target).toMatchObject({ price: 44, reason: 'undercut', lowest: { price: 45 } });
  });

  it('has no competition when every other offer is ignored', () => {
    const target = targetPrice(repricer(), [competitor(20, { connector: 'ebay' }), competitor(21, { offer_status: 'inactive' }), own(22)], 1);
    expect(target).toEqual({ price: 60, reason: 'no_competition' });
  });

  it.each([
    ['step 1.00: the floor rounds up past the ceiling', { min_price: 59.2, preferred_price: 59.9 }, 1],
    ['step 0.05', { min_price: 59.91, preferred_price: 59.94 }, 0.05],
  ])('is undefined when no price on the grid lies between floor and ceiling (%s)', (_, overrides, step) => {
    expect(targetPrice(repricer(overrides), [competitor(45)], step)).toBeUndefined();
    expect(targetPrice(repricer(overrides), [], step)).toBeUndefined();
  });

  describe('competitor filters', () => {
    const rival = (offer_price: number, seller_id: string, overrides: Partial<EngineOffer> = {}) => competitor(offer_price, { seller_id, ...overrides });

    it.each<[string, Partial<EngineRepricer>, EngineOffer]>([
      ['an excluded seller', { exclude_seller_ids: ['sister', 'seller-x'] }, rival(40, 'sister')],
      ['a rating below the minimum', { min_competitor_rating: 4 }, rival(40, 'junk', { rating_avg: 3.99 })],
      ['a leadtime offer when only in-stock ones count', { competitor_stock: 'in_stock' }, rival(40, 'slow', { stock_status: 'lead_time' })],
      ['a leadtime offer when the maximum leadtime is 0 days', { max_competitor_leadtime_days: 0 }, rival(40, 'slow', { stock_status: 'lead_time' })],
    ])('ignores %s: the next eligible competitor sets the target', (_, filters, excluded) => {
      // Act
      const target = targetPrice(repricer(filters), [excluded, rival(45, 'kept', { offer_id: 'KEPT' })], 1);

      // Assert
      expect(target).toEqual({ price: 44, reason: 'undercut', lowest: { price: 45, offerId: 'KEPT' } });
    });

    it.each<[string, Partial<EngineRepricer>, EngineOffer]>([
      ['a seller not in the list', { exclude_seller_ids: ['sister'] }, rival(40, 'sisters')],
      ['a rating exactly at the minimum', { min_competitor_rating: 4 }, rival(40, 'ok', { rating_avg: 4 })],
      ['a rating of 0 with the minimum 0', { min_competitor_rating: 0 }, rival(40, 'new', { rating_avg: 0 })],
      ['an in-stock offer when only in-stock ones count', { competitor_stock: 'in_stock' }, rival(40, 'fast')],
      // The stored offer has no leadtime days: nothing says a leadtime offer exceeds a maximum of a day or more.
      ['a leadtime offer under a maximum of 1 day', { max_competitor_leadtime_days: 1 }, rival(40, 'slow', { stock_status: 'lead_time' })],
      ['an in-stock offer under a maximum of 0 days', { max_competitor_leadtime_days: 0 }, rival(40, 'fast')],
      [
        'any offer with the defaults',
        { exclude_seller_ids: [], min_competitor_rating: null, competitor_stock: 'any', max_competitor_leadtime_days: null },
        rival(40, 'x', { rating_avg: 0, stock_status: 'lead_time' }),
      ],
    ])('keeps %s', (_, filters, kept) => {
      const target = targetPrice(repricer(filters), [kept, rival(45, 'other')], 1);
      expect(target).toEqual({ price: 39, reason: 'undercut', lowest: { price: 40, offerId: kept.offer_id } });
    });

    it('treats a repricer whose filters exclude every competitor as alone: the ceiling, no competition', () => {
      // Arrange
      const filtered = repricer({ exclude_seller_ids: ['sister'], min_competitor_rating: 4.9, competitor_stock: 'in_stock' });
      const offers = [rival(35, 'sister'), rival(36, 'junk', { rating_avg: 2 }), rival(37, 'slow', { stock_status: 'lead_time' }), own(50)];

      // Act
      const decisions = decide(filtered, offers, 1, never);

      // Assert
      expect(decisions).toEqual([{ offerId: 'OWN-1', oldPrice: 50, price: 60, reason: 'no_competition' }]);
    });

    it('combines the filters: a competitor passes only when no filter excludes it', () => {
      // Arrange
      const filtered = repricer({ exclude_seller_ids: ['sister'], min_competitor_rating: 4, competitor_stock: 'in_stock' });
      const offers = [
        rival(31, 'sister', { rating_avg: 5 }),
        rival(32, 'great-but-slow', { rating_avg: 5, stock_status: 'lead_time' }),
        rival(33, 'fast-but-junk', { rating_avg: 1 }),
        rival(50, 'good', { offer_id: 'GOOD', rating_avg: 4.2 }),
      ];

      // Act & Assert
      expect(targetPrice(filtered, offers, 1)).toEqual({ price: 49, reason: 'undercut', lowest: { price: 50, offerId: 'GOOD' } });
    });
  });

  it('refuses a step that is not positive', () => {
    expect(() => targetPrice(repricer(), [], 0)).toThrow(RangeError);
  });
});

describe('decide', () => {
  it("decides the target for the own offer on the repricer's connector, with its old price", () => {
    // Arrange
    const offers = [own(50), competitor(45, { offer_id: 'C-1' })];

    // Act
    const decisions = decide(repricer(), offers, 1, never);

    // Assert
    expect(decisions).toEqual([{ offerId: 'OWN-1', oldPrice: 50, price: 44, reason: 'undercut', lowest: { price: 45, offerId: 'C-1' } }]);
  });

  it('decides for every own offer on the connector, and none on another connector', () => {
    // Arrange
    const offers = [own(50), own(51, { offer_id: 'OWN-2' }), own(52, { offer_id: 'OWN-EBAY', connector: 'ebay' }), competitor(45)];

    // Act
    const decisions = decide(repricer(), offers, 1, never);

    // Assert
    expect(decisions.map((d) => d.offerId)).toEqual(['OWN-1', 'OWN-2']);
  });

  it('decides nothing when the own offer already has the target price', () => {
    expect(decide(repricer(), [own(44), competitor(45)], 1, never)).toEqual([]);
    expect(decide(repricer(), [own(60)], 1, never)).toEqual([]);
  });

  it('decides nothing when the target is the last decision for that offer (the price has not come back yet)', () => {
    // Arrange
    const lastDecided = (offerId: string) => (offerId === 'OWN-1' ? 44 : undefined);

    // Act
    const decisions = decide(repricer(), [own(50), own(50, { offer_id: 'OWN-2' }), competitor(45)], 1, lastDecided);

    // Assert
    expect(decisions.map((d) => d.offerId)).toEqual(['OWN-2']);
  });

  it('decides again when the target moved away from the last decision', () => {
    const decisions = decide(repricer(), [own(50), competitor(40)], 1, () => 44);
    expect(decisions).toMatchObject([{ offerId: 'OWN-1', price: 39, reason: 'undercut' }]);
  });

  it('decides nothing for a disabled repricer', () => {
    expect(decide(repricer({ enabled: false }), [own(50), competitor(45)], 1, never)).toEqual([]);
  });

  it('decides nothing without an own offer', () => {
    expect(decide(repricer(), [competitor(45), competitor(50)], 1, never)).toEqual([]);
  });

  it('decides nothing when no price on the grid lies between floor and ceiling', () => {
    expect(decide(repricer({ min_price: 59.2, preferred_price: 59.9 }), [own(50), competitor(45)], 1, never)).toEqual([]);
  });

  it('moves the own offer to the floor, never under it, and up to the ceiling when competitors move away', () => {
    // Arrange
    const floorRepricer = repricer({ min_price: 30.4 });

    // Act
    const down = decide(floorRepricer, [own(50), competitor(12.99)], 1, never);
    const up = decide(floorRepricer, [own(31), competitor(99)], 1, () => 31);

    // Assert
    expect(down).toMatchObject([{ price: 31, reason: 'floor', lowest: { price: 12.99 } }]);
    expect(up).toMatchObject([{ price: 60, reason: 'ceiling', lowest: { price: 99 } }]);
  });
});

describe('the rrp: the marketplace refuses a price above it, so the engine holds the target to it', () => {
  it.each([
    // [case, competitor prices, rrp, step, price, reason, the bound that set it]
    ['alone: the ceiling, held to the rrp under it', [], 50, 1, 50, 'no_competition', 'rrp'],
    ['alone: an rrp above the ceiling changes nothing', [], 70, 1, 60, 'no_competition', 'ceiling'],
    ['undercut above the rrp: the rrp', [56], 50, 1, 50, 'ceiling', 'rrp'],
    ['rrp off the grid: rounded down to it', [56], 50.5, 1, 50, 'ceiling', 'rrp'],
    ['undercut under the rrp: the undercut', [45], 50, 1, 44, 'undercut', undefined],
    ['ceiling under the rrp: the ceiling', [80], 70, 1, 60, 'ceiling', 'ceiling'],
  ] as const)('%s', (_, prices, rrp, step, price, reason, applied) => {
    // Act
    const { target, explanation } = planTarget(
      repricer(),
      prices.map((p) => competitor(p)),
      step,
      { rrp },
    );
    // Assess
    expect(target && { price: target.price, reason: target.reason }).toEqual({ price, reason });
    // The explanation lists the rrp after the floor and the ceiling, on the grid, and marks the bound that set the price.
    expect(explanation.bounds.map((bound) => bound.bound)).toEqual(['floor', 'ceiling', 'rrp']);
    expect(explanation.bounds.find((bound) => bound.bound === 'rrp')?.value).toBe(Math.floor(rrp));
    expect(explanation.bounds.filter((bound) => bound.applied).map((bound) => bound.bound)).toEqual(applied ? [applied] : []);
    expect(replayExplanation(explanation).final).toBe(price);
  });

  it('decides nothing when the rrp lies under the floor: no price the marketplace takes leaves the floor', () => {
    const { target, explanation } = planTarget(repricer(), [competitor(45)], 1, { rrp: 25 });
    expect(target).toBeUndefined();
    expect([explanation.final_price, replayExplanation(explanation).final]).toEqual([null, null]);
  });

  it('lists no rrp bound where the product has none', () => {
    expect(planTarget(repricer(), [competitor(45)], 1).explanation.bounds.map((bound) => bound.bound)).toEqual(['floor', 'ceiling']);
  });
});
