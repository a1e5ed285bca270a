import { computedFields, computePricing, costBasedFields, type PricingInput } from '../../../lambdas/domain/pricing.js';
import type { FeeEstimates } from '../../../lambdas/domain/records.js';

const fee = (fulfilment: number, commissionPercentage: number) => ({
  commission: 0, // the absolute commission estimate is informative only; the rate is used
  fulfilment,
  commission_percentage: commissionPercentage,
});

/** One connector "takealot" with different in-stock and lead-time fees. */
const estimates = (instock: [number, number], leadtime: [number, number] = instock): FeeEstimates => ({
  takealot: { instock: fee(...instock), leadtime: fee(...leadtime) },
});

const input = (overrides: Partial<PricingInput>): PricingInput => ({
  preferredPrice: 100,
  preferredProfit: 20,
  minProfit: 0,
  soh: 10,
  feeEstimates: estimates([5, 15], [8, 20]),
  connectorUid: 'takealot',
  ...overrides,
});

describe('computePricing', () => {
  it.each<[string, Partial<PricingInput>, number, number]>([
    // C = 100 - 0.15*100 - 5 - 20 = 60; min_price = (60 + 5 + 0) / 0.85 = 76.470588.. -> 76.48
    ['the worked example (in stock)', {}, 76.48, 5],
    // soh 0 -> leadtime fees: C = 100 - 20 - 8 - 20 = 52; (52 + 8 + 0) / 0.8 = 75 exactly
    ['lead-time fees when nothing is in stock', { soh: 0 }, 75, 8],
    // C = 60; (60 + 5 + 5) / 0.85 = 82.352941.. -> 82.36
    ['a min_profit of 5', { minProfit: 5 }, 82.36, 5],
    // no fees: C = 100 - 20 = 80; min_price = 80 (= P - profit gap)
    ['null fee_estimates (all fees 0)', { feeEstimates: null }, 80, 0],
    // no fees, gap 15: 100 - 15 = 85
    ['null fee_estimates with a min_profit', { feeEstimates: null, minProfit: 5 }, 85, 0],
    // the connector has no estimates: fees 0, P - gap = 50 - 10 = 40
    ['a connector without estimates', { preferredPrice: 50, preferredProfit: 10, connectorUid: 'amazon' }, 40, 0],
    // 30 %, no fulfilment: C = 10 - 3 - 0 - 1 = 6; 6 / 0.7 = 8.571428.. -> 8.58 (rounded up)
    ['a non-terminating fraction, rounded up', { preferredPrice: 10, preferredProfit: 1, feeEstimates: estimates([0, 30]) }, 8.58, 0],
    // C = 21 - 3.15 - 5 - 17 = -4.15; (-4.15 + 5) / 0.85 = 1 exactly (binary floats: 1.0000000000000018 -> 1.01)
    ['an exact cent that floats would push up (15 %)', { preferredPrice: 21, preferredProfit: 17 }, 1, 5],
    // C = 16.85 - 2.10625 - 5 - 1.75 = 7.99375; (7.99375 + 5) / 0.875 = 14.85 exactly (floats: 14.850000000000003 -> 14.86)
    ['a decimal percentage of 12.5 without drift', { preferredPrice: 16.85, preferredProfit: 1.75, feeEstimates: estimates([5, 12.5]) }, 14.85, 5],
    // C = 100 - 12.5 - 5 - 7 = 75.5; (75.5 + 5) / 0.875 = 92 exactly
    ['12.5 % on a round price', { preferredProfit: 7, feeEstimates: estimates([5, 12.5]) }, 92, 5],
    // min_profit = preferred_profit: min_price is the preferred price itself
    ['no profit gap', { preferredPrice: 19.99, preferredProfit: 3, minProfit: 3 }, 19.99, 5],
    // fees 0, gap 9.99: 10 - 9.99 = 0.01, the smallest positive price
    ['the smallest positive minimum price', { preferredPrice: 10, preferredProfit: 9.99, feeEstimates: null }, 0.01, 0],
    // 0 % commission: min_price = P - gap = 100 - 20
    ['a zero commission', { feeEstimates: estimates([2.5, 0]) }, 80, 2.5],
  ])('%s', (_case, overrides, minPrice, fixedFulfilmentFee) => {
    // Act
    const outcome = computePricing(input(overrides));

    // Assert
    expect(outcome).toEqual({
      ok: true,
      value: { minPrice, minProfit: overrides.minProfit ?? 0, fixedFulfilmentFee },
    });
  });

  it.each<[string, Partial<PricingInput>, RegExp]>([
    ['a commission of 100 %', { feeEstimates: estimates([5, 100]) }, /100 or more/],
    // fees 0: 10 - 10 = 0, not positive
    ['a minimum price of exactly 0', { preferredPrice: 10, preferredProfit: 10, feeEstimates: null }, /not be positive/],
    // 10 - 9 / 0.85 = -0.588..
    ['a profit the price cannot carry', { preferredPrice: 10, preferredProfit: 9 }, /larger than the preferred price can carry/],
    ['min_profit above preferred_profit', { preferredProfit: 5, minProfit: 6 }, /min_profit must not exceed preferred_profit/],
  ])('refuses %s', (_case, overrides, reason) => {
    // Act
    const outcome = computePricing(input(overrides));

    // Assert
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.reason).toMatch(reason);
  });

  it('uses the in-stock fees for any positive stock on hand', () => {
    expect(computePricing(input({ soh: 1 }))).toEqual(computePricing(input({ soh: 10 })));
    expect(computePricing(input({ soh: 1 }))).not.toEqual(computePricing(input({ soh: 0 })));
  });
});

describe('computedFields', () => {
  const preferences = { preferred_price: 100, preferred_profit: 20, min_profit: 0 };

  it.each<[string, { soh: number }, string, Record<string, number>]>([
    // the worked example: instock F 5, r 0.15 -> (60 + 5 + 0) / 0.85 = 76.47.. -> 76.48
    ['the in-stock fees of the connector', { soh: 10 }, 'takealot', { min_price: 76.48, min_profit: 0, fixed_fulfilment_fee: 5 }],
    ['the lead-time fees of the connector', { soh: 0 }, 'takealot', { min_price: 75, min_profit: 0, fixed_fulfilment_fee: 8 }],
    ['no fees for a connector without estimates', { soh: 10 }, 'amazon', { min_price: 80, min_profit: 0, fixed_fulfilment_fee: 0 }],
  ])('prices a repricer with %s, in its own field names', (_case, stock, connector, fields) => {
    expect(computedFields(preferences, { ...stock, fee_estimates: estimates([5, 15], [8, 20]) }, connector)).toEqual({ ok: true, fields });
  });

  it('gives the reason of computePricing when there is no price', () => {
    expect(computedFields({ ...preferences, min_profit: 21 }, { soh: 1, fee_estimates: null }, 'amazon')).toEqual({
      ok: false,
      reason: 'min_profit must not exceed preferred_profit.',
    });
  });
});

describe('costBasedFields', () => {
  const costs = { unit_cost: 50, preferred_profit: 20, min_profit: 5 };
  const withFees = (soh: number) => ({ soh, fee_estimates: estimates([5, 15], [8, 20]) });

  it.each<[string, typeof costs, { soh: number; fee_estimates: FeeEstimates | null }, string, Record<string, number>]>([
    // in stock: F 5, r 0.15: floor (50 + 5 + 5) / 0.85 = 70.588.. -> 70.59; ceiling (50 + 5 + 20) / 0.85 = 88.235.. -> 88.24
    ['the in-stock fees', costs, withFees(3), 'takealot', { preferred_price: 88.24, min_price: 70.59, min_profit: 5, fixed_fulfilment_fee: 5 }],
    // out of stock: F 8, r 0.20: floor (50 + 8 + 5) / 0.8 = 78.75; ceiling (50 + 8 + 20) / 0.8 = 97.5, both exact
    ['the lead-time fees when soh is 0', costs, withFees(0), 'takealot', { preferred_price: 97.5, min_price: 78.75, min_profit: 5, fixed_fulfilment_fee: 8 }],
    // no estimates for the connector: no fees, the bounds are cost + profit
    ['no fees for a connector without estimates', costs, withFees(3), 'amazon', { preferred_price: 70, min_price: 55, min_profit: 5, fixed_fulfilment_fee: 0 }],
    [
      'no fees when fee_estimates is null',
      costs,
      { soh: 3, fee_estimates: null },
      'takealot',
      { preferred_price: 70, min_price: 55, min_profit: 5, fixed_fulfilment_fee: 0 },
    ],
    // equal profits: floor and ceiling are one price
    [
      'equal profits',
      { ...costs, min_profit: 20 },
      withFees(3),
      'takealot',
      { preferred_price: 88.24, min_price: 88.24, min_profit: 20, fixed_fulfilment_fee: 5 },
    ],
    // a unit cost of 0 still has a floor when fees or a profit carry it: (0 + 5 + 0) / 0.85 = 5.882.. -> 5.89
    [
      'a unit cost of 0 with fees',
      { unit_cost: 0, preferred_profit: 1, min_profit: 0 },
      withFees(1),
      'takealot',
      { preferred_price: 7.06, min_price: 5.89, min_profit: 0, fixed_fulfilment_fee: 5 },
    ],
    // a rate with decimals: 12.5 % -> (10 + 0.01) / 0.875 = 11.44 exactly; floor at profit 0: 10 / 0.875 = 11.428.. -> 11.43
    [
      'a commission with decimals',
      { unit_cost: 10, preferred_profit: 0.01, min_profit: 0 },
      { soh: 1, fee_estimates: estimates([0, 12.5]) },
      'takealot',
      { preferred_price: 11.44, min_price: 11.43, min_profit: 0, fixed_fulfilment_fee: 0 },
    ],
  ])('prices from the unit cost with %s', (_case, preferences, product, connector, fields) => {
    expect(costBasedFields(preferences, product, connector)).toEqual({ ok: true, fields });
  });

  it('moves both bounds when the stock mode switches (soh crossing 0), and back', () => {
    const inStock = costBasedFields(costs, withFees(1), 'takealot');
    const soldOut = costBasedFields(costs, withFees(0), 'takealot');
    expect(inStock).toMatchObject({ ok: true, fields: { min_price: 70.59, preferred_price: 88.24 } });
    expect(soldOut).toMatchObject({ ok: true, fields: { min_price: 78.75, preferred_price: 97.5 } });
    expect(costBasedFields(costs, withFees(1_000), 'takealot')).toEqual(inStock);
  });

  it.each<[string, typeof costs, { soh: number; fee_estimates: FeeEstimates | null }, string | undefined, RegExp]>([
    [
      'no positive floor (no cost, no fee, no profit)',
      { unit_cost: 0, preferred_profit: 0, min_profit: 0 },
      { soh: 1, fee_estimates: null },
      'unit_cost',
      /floor would not be positive/,
    ],
    [
      'a floor above the ceiling',
      { unit_cost: 10, preferred_profit: 1, min_profit: 2 },
      { soh: 1, fee_estimates: null },
      'min_profit',
      /must not exceed preferred_profit/,
    ],
    [
      'a ceiling past the largest price',
      { unit_cost: 9_999_999, preferred_profit: 2, min_profit: 0 },
      { soh: 1, fee_estimates: null },
      'unit_cost',
      /ceiling would exceed/,
    ],
    ['a commission of 100 %', costs, { soh: 1, fee_estimates: estimates([0, 100]) }, undefined, /100 or more/],
  ])('refuses %s, naming the field at fault', (_case, preferences, product, field, reason) => {
    const outcome = costBasedFields(preferences, product, 'takealot');
    expect(outcome).toEqual({ ok: false, ...(field ? { field } : {}), reason: expect.stringMatching(reason) });
  });
});
