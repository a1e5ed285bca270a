import { parsePreviewOverrides } from '../../../lambdas/domain/preview-overrides.js';
import { MAX_EXCLUDED_SELLERS } from '../../../lambdas/domain/records.js';

/** The query overrides of GET /v1/repricers/{id}/preview: text read as the value it spells, checked by create's rules. */
describe('parsePreviewOverrides', () => {
  it('takes no overrides from an empty query', () => {
    expect(parsePreviewOverrides({})).toEqual({ ok: true, overrides: {} });
  });

  it('reads each preference as the value it spells', () => {
    // Act
    const parsed = parsePreviewOverrides({
      enabled: 'false',
      preferred_price: '119.5',
      preferred_profit: '20',
      min_profit: '0',
      buybox_approach: 'cheapest',
      repricer_approach: 'fixed',
      exclude_seller_ids: 'seller-a,seller-b',
      min_competitor_rating: '4.5',
      competitor_stock: 'in_stock',
      max_competitor_leadtime_days: '3',
    });

    // Assert
    expect(parsed).toEqual({
      ok: true,
      overrides: {
        enabled: false,
        preferred_price: 119.5,
        preferred_profit: 20,
        min_profit: 0,
        buybox_approach: 'cheapest',
        repricer_approach: 'fixed',
        exclude_seller_ids: ['seller-a', 'seller-b'],
        min_competitor_rating: 4.5,
        competitor_stock: 'in_stock',
        max_competitor_leadtime_days: 3,
      },
    });
  });

  it.each([
    ['null', { min_competitor_rating: 'null', max_competitor_leadtime_days: 'null' }, { min_competitor_rating: null, max_competitor_leadtime_days: null }],
    ['empty', { min_competitor_rating: '', max_competitor_leadtime_days: '' }, { min_competitor_rating: null, max_competitor_leadtime_days: null }],
  ])('turns a filter off with %s, and reads an empty list as no seller excluded', (_case, query, expected) => {
    expect(parsePreviewOverrides({ ...query, exclude_seller_ids: '' })).toEqual({ ok: true, overrides: { ...expected, exclude_seller_ids: [] } });
  });

  it('reads an object setting spelled as JSON, and refuses one that is not by the guard rules', () => {
    expect(parsePreviewOverrides({ price_war_guard: '{"undercuts":3,"cooldown_minutes":60}', unit_cost: '62.5' })).toEqual({
      ok: true,
      overrides: { price_war_guard: { undercuts: 3, cooldown_minutes: 60 }, unit_cost: 62.5 },
    });
    expect(parsePreviewOverrides({ price_war_guard: '' })).toEqual({ ok: true, overrides: { price_war_guard: null } });
    for (const value of ['{"undercuts":0,"cooldown_minutes":60}', '{undercuts:3}', '3']) {
      const parsed = parsePreviewOverrides({ price_war_guard: value });
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.errors.map((error) => error.field)).toEqual(['price_war_guard']);
    }
  });

  it('keeps a seller id that looks like a number as text', () => {
    expect(parsePreviewOverrides({ exclude_seller_ids: '12345' })).toEqual({ ok: true, overrides: { exclude_seller_ids: ['12345'] } });
  });

  it.each<[string, Record<string, string>, string, RegExp]>([
    ['an unknown approach', { buybox_approach: 'nope' }, 'buybox_approach', /expected one of "cheapest"/],
    ['a price of text', { preferred_price: 'cheap' }, 'preferred_price', /expected number/i],
    ['a zero price', { preferred_price: '0' }, 'preferred_price', /greater than 0|>0/i],
    ['three decimals', { preferred_price: '10.123' }, 'preferred_price', /2 decimals/],
    ['a rating above 5', { min_competitor_rating: '6' }, 'min_competitor_rating', /5/],
    ['a fractional lead time', { max_competitor_leadtime_days: '1.5' }, 'max_competitor_leadtime_days', /expected int/],
    ['a boolean spelled 1', { enabled: '1' }, 'enabled', /expected boolean/i],
    ['too many sellers', { exclude_seller_ids: Array.from({ length: MAX_EXCLUDED_SELLERS + 1 }, (_, i) => `s${i}`).join(',') }, 'exclude_seller_ids', /50/],
    ['an empty seller id', { exclude_seller_ids: 'a,,b' }, 'exclude_seller_ids.1', /at least 1|>=1/i],
    ['an unknown field', { colour: 'red' }, 'colour', /Unknown field/],
    ['a field named like an inherited member', { constructor: '1' }, 'constructor', /Unknown field/],
    ['another inherited name', { toString: 'x' }, 'toString', /Unknown field/],
    ['the product', { product_code: 'P-2' }, 'product_code', /POST \/v1\/repricers\/preview/],
    ['the connector', { connector: 'ebay' }, 'connector', /POST \/v1\/repricers\/preview/],
    ['a computed floor', { min_price: '80' }, 'min_price', /computed/],
  ])('refuses %s, naming the field', (_case, query, field, message) => {
    // Act
    const parsed = parsePreviewOverrides(query);

    // Assert
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]!.field).toBe(field.split('.')[0]);
    expect(parsed.errors[0]!.message).toMatch(message);
  });

  it('names every field that is wrong at once', () => {
    const parsed = parsePreviewOverrides({ buybox_approach: 'nope', preferred_price: '-1', enabled: 'true' });
    expect(parsed.ok || parsed.errors.map((error) => error.field)).toEqual(['buybox_approach', 'preferred_price']);
  });
});
