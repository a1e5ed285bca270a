import { BUYBOX_APPROACHES, type BuyboxApproach } from '../../../lambdas/domain/approaches.js';
import { replayExplanation } from '../../../lambdas/domain/explanation.js';
import { DEFAULT_IN_STOCK_PREMIUM, type InStockPremium } from '../../../lambdas/domain/in-stock-premium.js';
import { decide, planTarget, targetPrice, type EngineOffer, type EngineRepricer } from '../../../lambdas/domain/repricing.js';
import { STRATEGIES } from '../../../lambdas/domain/strategies/table.js';

/** The approaches (docs/repricing.md, "Approaches"), one rule a row. Floor 30, ceiling 60, step 1 unless a row says otherwise. */
const repricer = (buybox_approach: BuyboxApproach, overrides: Partial<EngineRepricer> = {}): EngineRepricer => ({
  enabled: true,
  min_price: 30,
  preferred_price: 60,
  connector: 'amazon',
  buybox_approach,
  ...overrides,
});

const rival = (offer_id: string, offer_price: number, stock_status?: 'in_stock' | 'lead_time'): EngineOffer => ({
  offer_id,
  offer_price,
  offer_status: 'buyable',
  connector: 'amazon',
  own: false,
  seller_id: `seller-of-${offer_id}`,
  ...(stock_status ? { stock_status } : {}),
});
const inStock = (id: string, price: number) => rival(id, price, 'in_stock');
const leadtime = (id: string, price: number) => rival(id, price, 'lead_time');
const own = (offer_price: number, stock_status?: 'in_stock' | 'lead_time'): EngineOffer => ({
  offer_id: 'OWN-1',
  offer_price,
  offer_status: 'buyable',
  connector: 'amazon',
  own: true,
  ...(stock_status ? { stock_status } : {}),
});
const premium = (low_percent: number, high_percent: number): InStockPremium => ({ low_percent, high_percent, observations: 3 });

describe('the strategy table', () => {
  it('has one strategy for every buybox_approach, under its own name', () => {
    // Act & Assert
    expect(Object.keys(STRATEGIES).sort()).toEqual([...BUYBOX_APPROACHES].sort());
    for (const approach of BUYBOX_APPROACHES) expect(STRATEGIES[approach].approach).toBe(approach);
  });

  it('decides as cheapest when the repricer names no approach (a slot stored before approaches existed)', () => {
    // Arrange
    const offers = [own(50, 'in_stock'), leadtime('L', 45), inStock('I', 47)];
    const { buybox_approach: _, ...unnamed } = repricer('cheapest');

    // Act & Assert
    expect(targetPrice(unnamed, offers, 1)).toEqual(targetPrice(repricer('cheapest'), offers, 1));
    expect(planTarget(unnamed, offers, 1).explanation.approach.buybox_approach).toBe('cheapest');
  });
});

describe.each<[string, BuyboxApproach, EngineOffer[], InStockPremium | undefined, number, string, string | undefined]>([
  // [rule, approach, offers, premium, price, reason, the rival it was set against]
  ['cheapest: one step under the lowest rival', 'cheapest', [own(55, 'in_stock'), inStock('A', 45), inStock('B', 50)], undefined, 44, 'undercut', 'A'],
  ['cheapest: a leadtime rival is undercut like any other', 'cheapest', [own(55, 'in_stock'), leadtime('L', 45)], premium(5, 5), 44, 'undercut', 'L'],
  ['match: equal to the lowest rival', 'match', [own(55), inStock('A', 45), inStock('B', 50)], undefined, 45, 'match', 'A'],
  ['match: an off-grid rival, rounded down to the grid', 'match', [own(55), inStock('A', 45.5)], undefined, 45, 'match', 'A'],
  ['match: alone, the ceiling', 'match', [own(55)], undefined, 60, 'no_competition', undefined],
  ['match: never under the floor', 'match', [own(55), inStock('A', 20)], undefined, 30, 'floor', 'A'],
  ['buybox: in stock against an in-stock rival, one step under it', 'buybox', [own(55, 'in_stock'), inStock('I', 45)], premium(5, 8), 44, 'undercut', 'I'],
  [
    'buybox: in stock against a cheaper leadtime rival, dearer by up to the low end of the premium (45 / 0.95 = 47.37, a step under: 46)',
    'buybox',
    [own(55, 'in_stock'), leadtime('L', 45)],
    premium(5, 8),
    46,
    'in_stock_premium',
    'L',
  ],
  [
    'buybox: in stock, no premium counted before any observation (the default low end, 0 %)',
    'buybox',
    [own(55, 'in_stock'), leadtime('L', 45)],
    undefined,
    44,
    'in_stock_premium',
    'L',
  ],
  [
    'buybox: in stock, the lower of the two limits (the in-stock rival)',
    'buybox',
    [own(55, 'in_stock'), leadtime('L', 45), inStock('I', 46)],
    premium(5, 8),
    45,
    'undercut',
    'I',
  ],
  [
    'buybox: leadtime against an in-stock rival, under it by the high end of the premium (50 * 0.9 = 45, a step under: 44)',
    'buybox',
    [own(55, 'lead_time'), inStock('I', 50)],
    premium(5, 10),
    44,
    'in_stock_premium',
    'I',
  ],
  ['buybox: leadtime against a leadtime rival, one step under it', 'buybox', [own(55, 'lead_time'), leadtime('L', 45)], premium(5, 10), 44, 'undercut', 'L'],
  ['buybox: own stock unknown, no premium either way', 'buybox', [own(55), leadtime('L', 45)], premium(5, 10), 44, 'undercut', 'L'],
  ['buybox: a rival whose stock is unknown is undercut', 'buybox', [own(55, 'in_stock'), rival('U', 45)], premium(5, 10), 44, 'undercut', 'U'],
  [
    'buybox: a premium of 100 %: a leadtime rival never wins against in stock',
    'buybox',
    [own(55, 'in_stock'), leadtime('L', 45)],
    premium(100, 100),
    60,
    'no_competition',
    undefined,
  ],
  ['fastest_delivery: one step under the cheapest in-stock rival', 'fastest_delivery', [own(55, 'in_stock'), inStock('I', 50)], undefined, 49, 'undercut', 'I'],
  [
    'fastest_delivery: cheaper leadtime rivals are ignored',
    'fastest_delivery',
    [own(55, 'in_stock'), leadtime('L', 40), inStock('I', 50)],
    undefined,
    49,
    'undercut',
    'I',
  ],
  [
    'fastest_delivery: only leadtime rivals, alone: the ceiling',
    'fastest_delivery',
    [own(55, 'in_stock'), leadtime('L', 40)],
    undefined,
    60,
    'no_competition',
    undefined,
  ],
  [
    'fastest_delivery: a rival whose stock is unknown counts as in stock',
    'fastest_delivery',
    [own(55, 'in_stock'), rival('U', 50)],
    undefined,
    49,
    'undercut',
    'U',
  ],
])('%s', (_, approach, offers, given, price, reason, against) => {
  it('targets that price, for that reason, against that rival, and its explanation replays to it', () => {
    // Act
    const { target, explanation } = planTarget(repricer(approach), offers, 1, given ? { premium: given } : {});

    // Assert
    expect(target).toMatchObject({ price, reason });
    expect(target?.lowest?.offerId).toBe(against);
    expect(explanation).toMatchObject({ approach: { buybox_approach: approach }, final_price: price, reason });
    expect(replayExplanation(explanation).final).toBe(price);
  });
});

describe('holding the slot it aims for', () => {
  it.each<[BuyboxApproach, EngineOffer[], number]>([
    ['cheapest', [own(40, 'in_stock'), inStock('I', 50)], 49],
    ['match', [own(40, 'in_stock'), inStock('I', 50)], 50],
    ['buybox', [own(40, 'in_stock'), leadtime('L', 50)], 49],
    ['fastest_delivery', [own(40, 'in_stock'), inStock('I', 50), leadtime('L', 41)], 49],
  ])('%s raises the price to the next eligible rival, never past the ceiling', (approach, offers, raised) => {
    // Act
    const [decision] = decide(repricer(approach), offers, 1, () => undefined);
    const capped = decide(repricer(approach, { preferred_price: 45 }), offers, 1, () => undefined);

    // Assert
    expect(decision).toMatchObject({ oldPrice: 40, price: raised });
    expect(capped).toEqual([expect.objectContaining({ price: 45, reason: 'ceiling' })]);
  });

  it('buybox does not undercut a cheaper leadtime rival it already beats by the premium', () => {
    // Arrange: 48 * 0.95 = 45.6 < 47; at 49 (46.55) too, yet 49 is not a step under the tie (49.47)
    const offers = [own(46, 'in_stock'), leadtime('L', 47), inStock('I', 60)];

    // Act
    const [decision] = decide(repricer('buybox'), offers, 1, () => undefined, { premium: premium(5, 8) });

    // Assert
    expect(decision).toMatchObject({ oldPrice: 46, price: 48, reason: 'in_stock_premium' });
  });
});

describe('the explanation', () => {
  it('lists at most 10 competitors of each kind, the cheapest, with the counts of all', () => {
    // Arrange
    const offers = [
      own(55),
      ...Array.from({ length: 14 }, (_, i) => inStock(`K-${String(i).padStart(2, '0')}`, 40 + i)),
      ...Array.from({ length: 12 }, (_, i) => ({ ...inStock(`X-${String(i).padStart(2, '0')}`, 30 + i), offer_status: 'not_buyable' })),
    ];

    // Act
    const { explanation } = planTarget(repricer('cheapest'), offers, 1);

    // Assert
    expect(explanation.competitors.considered.map((c) => c.offer_id)).toEqual(Array.from({ length: 10 }, (_, i) => `K-${String(i).padStart(2, '0')}`));
    expect(explanation.competitors.excluded).toHaveLength(10);
    expect(explanation.competitor_counts).toEqual({ considered: 14, excluded: 12 });
  });

  it('says which premium buybox counted with, and the own offer stock mode', () => {
    // Act
    const { explanation } = planTarget(repricer('buybox'), [own(55, 'in_stock'), leadtime('L', 45)], 1, { premium: premium(5, 8) });

    // Assert
    expect(explanation).toMatchObject({
      own_stock_status: 'in_stock',
      in_stock_premium: premium(5, 8),
      steps: [{ rule: 'in_stock_premium', offer_id: 'L', price: 45, stock_status: 'lead_time', premium_percent: 5, limit: 46 }],
      raw_target: 46,
    });
    expect(planTarget(repricer('buybox'), [own(55, 'in_stock')], 1).explanation.in_stock_premium).toEqual(DEFAULT_IN_STOCK_PREMIUM);
  });
});
