import { createRepricerBody } from '../../../lambdas/domain/create-repricer.js';
import { repricerRecord } from '../../../lambdas/domain/records.js';
import { preferencesOf, UPDATABLE_FIELDS } from '../../../lambdas/domain/repricer-preferences.js';
import { updateRepricerBody } from '../../../lambdas/domain/update-repricer.js';
import { repricer } from '../data/fixtures.js';

describe('UPDATABLE_FIELDS', () => {
  it('are fields of both the create body and the repricer record', () => {
    expect(UPDATABLE_FIELDS.filter((field) => !(field in createRepricerBody.shape) || !(field in repricerRecord.shape))).toEqual([]);
  });

  it('are what a PATCH body accepts, each on its own, with the rules of create', () => {
    const valid = { ...preferencesOf(repricer()), preferred_price: 0.01 };
    for (const field of UPDATABLE_FIELDS) {
      expect(updateRepricerBody.parse({ [field]: valid[field] })).toEqual({ [field]: valid[field] });
    }
    expect(updateRepricerBody.safeParse({ preferred_price: 0 }).success).toBe(false);
  });

  it('leave out what a create body has besides them: the product and the connector', () => {
    const others = Object.keys(createRepricerBody.shape).filter((field) => !(UPDATABLE_FIELDS as readonly string[]).includes(field));
    expect(others).toEqual(['product_code', 'connector']);
    for (const field of others) expect(updateRepricerBody.safeParse({ [field]: 'SKU-1' }).success).toBe(false);
  });
});

describe('preferencesOf', () => {
  it('keeps the preferences of a repricer or a body and nothing else', () => {
    // Arrange
    const body = createRepricerBody.parse({ product_code: 'SKU-1', preferred_price: 100, preferred_profit: 20, connector: 'takealot' });

    // Act & Assert
    expect(preferencesOf(body)).toEqual({
      enabled: true,
      preferred_price: 100,
      preferred_profit: 20,
      min_profit: 0,
      buybox_approach: 'cheapest',
      repricer_approach: 'fixed',
      exclude_seller_ids: [],
      min_competitor_rating: null,
      competitor_stock: 'any',
      max_competitor_leadtime_days: null,
      price_war_guard: null,
    });
    expect(Object.keys(preferencesOf(repricer()))).toEqual([...UPDATABLE_FIELDS]);
  });
});
