import type { Repricer } from '../../../lambdas/domain/records.js';
import { applyRepricerPatch, nextTimestamp, repricedCostBounds, updateRepricerBody } from '../../../lambdas/domain/update-repricer.js';
import { CREATED_AT, feeEstimate, product, repricer } from '../data/fixtures.js';

const UPDATED_AT = '2026-02-01T00:00:00.000Z';
const NOW = '2026-03-01T12:00:00.000Z';
const current: Repricer = repricer({ updated_at: UPDATED_AT });
const fieldsOf = (body: unknown) => {
  const result = updateRepricerBody.safeParse(body);
  return result.success
    ? []
    : result.error.issues.map((issue) => (issue.code === 'unrecognized_keys' ? issue.keys.join(',') : issue.path.join('.') || '(body)'));
};

describe('updateRepricerBody', () => {
  it.each([
    { enabled: false },
    { preferred_price: 0.01 },
    { preferred_profit: 0, min_profit: 0 },
    { buybox_approach: 'cheapest', repricer_approach: 'fixed' },
    { exclude_seller_ids: ['sister'], competitor_stock: 'in_stock' },
    { min_competitor_rating: null, max_competitor_leadtime_days: null },
    { exclude_seller_ids: [] },
  ])('accepts %p as given, adding no defaults', (body) => {
    expect(updateRepricerBody.parse(body)).toEqual(body);
  });

  it.each<[unknown, string[]]>([
    [{}, ['(body)']],
    [null, ['(body)']],
    [[], ['(body)']],
    [{ preferred_price: 0 }, ['preferred_price']],
    [{ preferred_price: '10' }, ['preferred_price']],
    [{ preferred_profit: -1 }, ['preferred_profit']],
    [{ min_profit: 1.001 }, ['min_profit']],
    [{ enabled: 'false' }, ['enabled']],
    [{ enabled: null }, ['enabled']],
    [{ repricer_approach: 'dynamic' }, ['repricer_approach']],
    [{ id: 1, enabled: true }, ['id']],
    [{ min_price: 1 }, ['min_price']],
    [{ product_code: 'SKU-2' }, ['product_code']],
    [{ connector: 'takealot' }, ['connector']],
    [{ created_at: NOW, updated_at: NOW }, ['created_at,updated_at']],
    [{ exclude_seller_ids: 'sister' }, ['exclude_seller_ids']],
    [{ exclude_seller_ids: null }, ['exclude_seller_ids']],
    [{ exclude_seller_ids: [1] }, ['exclude_seller_ids.0']],
    [{ min_competitor_rating: 6 }, ['min_competitor_rating']],
    [{ competitor_stock: 'any_stock' }, ['competitor_stock']],
    [{ max_competitor_leadtime_days: 2.5 }, ['max_competitor_leadtime_days']],
  ])('refuses %p naming %p', (body, fields) => {
    expect(fieldsOf(body)).toEqual(fields);
  });
});

describe('applyRepricerPatch', () => {
  it('sets competitor filters, and turns one off with null, keeping the others', () => {
    // Arrange
    const filtered = applyRepricerPatch(
      current,
      { exclude_seller_ids: ['sister'], min_competitor_rating: 4, max_competitor_leadtime_days: 0 },
      current.product,
      NOW,
    );
    if (!filtered.ok) throw new Error(filtered.reason);

    // Act
    const cleared = applyRepricerPatch(filtered.record, { min_competitor_rating: null }, current.product, NOW);

    // Assert
    expect(filtered.record).toMatchObject({
      exclude_seller_ids: ['sister'],
      min_competitor_rating: 4,
      competitor_stock: 'any',
      max_competitor_leadtime_days: 0,
    });
    expect(cleared).toMatchObject({ ok: true, record: { exclude_seller_ids: ['sister'], min_competitor_rating: null, max_competitor_leadtime_days: 0 } });
  });

  it('changes the given fields and recomputes from the product and the repricer connector', () => {
    // Act: soh > 0 prices with the instock fees (F 5, r 0.15): 200 - (20 - 5) / 0.85 = 182.35.. -> 182.36
    const outcome = applyRepricerPatch(current, { preferred_price: 200, min_profit: 5 }, current.product, NOW);

    // Assert
    expect(outcome).toEqual({ ok: true, record: { ...current, preferred_price: 200, min_profit: 5, min_price: 182.36, updated_at: NOW } });
  });

  it('prices with the product as it is now, which it nests', () => {
    // Arrange: out of stock now, lead-time fees F 8, r 0.20
    const now = product({ soh: 0, title: 'Renamed', updated_at: NOW });

    // Act: 100 - 20 / 0.8 = 75
    const outcome = applyRepricerPatch(current, { enabled: false }, now, NOW);

    // Assert
    expect(outcome).toEqual({ ok: true, record: { ...current, enabled: false, min_price: 75, fixed_fulfilment_fee: 8, product: now, updated_at: NOW } });
  });

  it('prices with no fees when the product no longer has any for the connector', () => {
    const outcome = applyRepricerPatch(
      current,
      { preferred_profit: 10 },
      product({ fee_estimates: { other: { instock: feeEstimate(1, 1), leadtime: feeEstimate(1, 1) } } }),
      NOW,
    );

    expect(outcome).toMatchObject({ ok: true, record: { preferred_profit: 10, min_price: 90, fixed_fulfilment_fee: 0 } });
  });

  it('keeps id, uid, connector, created_at and the preferences not given', () => {
    const outcome = applyRepricerPatch({ ...current, min_profit: 3, enabled: false }, { preferred_profit: 25 }, current.product, NOW);

    expect(outcome.ok && outcome.record).toMatchObject({
      id: 7,
      uid: current.uid,
      connector_type: current.connector_type,
      created_at: CREATED_AT,
      enabled: false,
      min_profit: 3,
    });
  });

  it.each([
    ['a min_profit above the preferred profit', { min_profit: 25 }],
    ['a profit the price cannot carry', { preferred_price: 10 }],
  ])('refuses %s with the reason', (_case, patch) => {
    expect(applyRepricerPatch(current, patch, current.product, NOW)).toEqual({ ok: false, reason: expect.stringMatching(/profit/) });
  });
});

describe('applyRepricerPatch with repricer_approach cost_based', () => {
  // The fixture product: in stock with F 5, r 0.15; out of stock F 8, r 0.20.
  const switched = applyRepricerPatch(current, { repricer_approach: 'cost_based', unit_cost: 50, min_profit: 5 }, current.product, NOW);
  const costBased = switched.ok ? switched.record : current;

  it('computes both bounds from the unit cost: (50 + 5 + profit) / 0.85, rounded up', () => {
    expect(switched).toEqual({
      ok: true,
      record: { ...current, repricer_approach: 'cost_based', unit_cost: 50, min_profit: 5, min_price: 70.59, preferred_price: 88.24, updated_at: NOW },
    });
  });

  it('recomputes them from the product as it is now: out of stock, (50 + 8 + profit) / 0.8', () => {
    const soldOut = product({ soh: 0 });
    expect(applyRepricerPatch(costBased, {}, soldOut, NOW)).toMatchObject({
      ok: true,
      record: { min_price: 78.75, preferred_price: 97.5, fixed_fulfilment_fee: 8, unit_cost: 50, product: soldOut },
    });
  });

  it('becomes fixed again with its last ceiling as preferred_price, and no unit cost', () => {
    // 88.24 - (20 - 5) / 0.85 = 70.592.. -> 70.60
    expect(applyRepricerPatch(costBased, { repricer_approach: 'fixed' }, current.product, NOW)).toMatchObject({
      ok: true,
      record: { repricer_approach: 'fixed', preferred_price: 88.24, min_price: 70.6, unit_cost: null },
    });
  });

  it.each<[string, Repricer, Record<string, unknown>, string, Repricer['product']?]>([
    ['cost_based without a unit cost', current, { repricer_approach: 'cost_based' }, 'unit_cost'],
    ['a unit cost taken away', costBased, { unit_cost: null }, 'unit_cost'],
    ['a preferred_price for a cost_based repricer', costBased, { preferred_price: 120 }, 'preferred_price'],
    ['a unit cost for a fixed repricer', current, { unit_cost: 50 }, 'unit_cost'],
    ['a floor above the ceiling', costBased, { min_profit: 25 }, 'min_profit'],
    // Without fees, nothing to cover and no profit: the floor would be 0.
    [
      'a unit cost that leaves no positive floor',
      costBased,
      { unit_cost: 0, min_profit: 0, preferred_profit: 0 },
      'unit_cost',
      product({ fee_estimates: null }),
    ],
  ])('refuses %s, naming the field', (_case, repricer, patch, field, now = repricer.product) => {
    expect(applyRepricerPatch(repricer, patch, now, NOW)).toEqual({ ok: false, field, reason: expect.any(String) });
  });
});

describe('nextTimestamp', () => {
  it.each([
    [UPDATED_AT, NOW, NOW],
    [NOW, NOW, '2026-03-01T12:00:00.001Z'],
    ['2026-03-01T12:00:00.005Z', NOW, '2026-03-01T12:00:00.006Z'],
  ])('after %s at %s is %s', (previous, now, expected) => {
    expect(nextTimestamp(previous, now)).toBe(expected);
  });
});

describe('repricedCostBounds: a product written prices its cost_based repricers again', () => {
  const switched = applyRepricerPatch(current, { repricer_approach: 'cost_based', unit_cost: 50, min_profit: 5 }, current.product, NOW);
  const costBased = switched.ok ? switched.record : current;
  const LATER = '2026-03-02T12:00:00.000Z';

  it('rewrites one whose bounds moved with the stock mode', () => {
    expect(repricedCostBounds(costBased, product({ soh: 0 }), LATER)).toMatchObject({ min_price: 78.75, preferred_price: 97.5, updated_at: LATER });
  });

  it.each<[string, Repricer, Repricer['product'] | undefined]>([
    ['bounds that did not move', costBased, product({ title: 'Another title' })],
    ['a fixed repricer', current, product({ soh: 0 })],
    ['a product that is gone', costBased, undefined],
    ['fees that leave no price for its costs', { ...costBased, unit_cost: 0, min_profit: 0, preferred_profit: 0 }, product({ fee_estimates: null })],
  ])('leaves it alone for %s', (_case, repricer, now) => {
    expect(repricedCostBounds(repricer, now, LATER)).toBeUndefined();
  });
});
