import { chooseConnector, createRepricerBody } from '../../../lambdas/shared/domain/create-repricer.js';
import type { FeeEstimates } from '../../../lambdas/shared/domain/records.js';

const fee = { commission: 1, fulfilment: 2, commission_percentage: 10 };
const priced = (...uids: string[]): FeeEstimates => Object.fromEntries(uids.map((uid) => [uid, { instock: fee, leadtime: fee }]));

describe('chooseConnector', () => {
  it.each<[string, FeeEstimates | null, string | undefined, string]>([
    ['null estimates: the client default', null, undefined, 'amazon'],
    ['empty estimates: the client default', {}, undefined, 'amazon'],
    ['no estimates but a named connector: the named one', null, 'bol', 'bol'],
    ['one priced connector: that one', priced('takealot'), undefined, 'takealot'],
    ['one priced connector, named: that one', priced('takealot'), 'takealot', 'takealot'],
    ['several, one named: the named one', priced('takealot', 'bol'), 'bol', 'bol'],
  ])('%s', (_case, estimates, requested, uid) => {
    expect(chooseConnector(estimates, requested, 'amazon')).toEqual({ ok: true, uid });
  });

  it('asks for a connector when the product is priced on several, listing them sorted', () => {
    // Act
    const choice = chooseConnector(priced('takealot', 'bol', 'amazon'), undefined, 'amazon');

    // Assert
    expect(choice).toEqual({
      ok: false,
      message: 'The product is sold on several connectors; name one in "connector": amazon, bol, takealot.',
    });
  });

  it('refuses a named connector the product has no estimates for, listing the choices', () => {
    // Act
    const choice = chooseConnector(priced('takealot'), 'amazon', 'amazon');

    // Assert
    expect(choice).toEqual({
      ok: false,
      message: 'The product has no fee estimates for this connector; choose one of: takealot.',
    });
  });
});

describe('createRepricerBody', () => {
  const minimal = { product_code: 'SKU-1', preferred_price: 100, preferred_profit: 20 };

  it('applies the defaults', () => {
    // Act
    const body = createRepricerBody.parse(minimal);

    // Assert
    expect(body).toEqual({
      product_code: 'SKU-1',
      preferred_price: 100,
      preferred_profit: 20,
      buybox_approach: 'cheapest',
      repricer_approach: 'fixed',
      enabled: true,
      min_profit: 0,
    });
    expect(body).not.toHaveProperty('connector');
  });

  it('keeps every field that is given', () => {
    // Arrange
    const full = {
      ...minimal,
      buybox_approach: 'cheapest',
      repricer_approach: 'fixed',
      enabled: false,
      connector: 'take-a_lot1',
      min_profit: 5.5,
    };

    // Act & Assert
    expect(createRepricerBody.parse(full)).toEqual(full);
  });

  it.each<[string, Record<string, unknown>]>([
    ['preferred_price of 0.01', { preferred_price: 0.01 }],
    ['preferred_price at the bound', { preferred_price: 10_000_000 }],
    ['preferred_profit of 0', { preferred_profit: 0 }],
    ['two decimals', { preferred_price: 19.99, preferred_profit: 0.1 }],
    ['a product code of 64 characters', { product_code: 'x'.repeat(64) }],
  ])('accepts %s', (_case, overrides) => {
    expect(createRepricerBody.safeParse({ ...minimal, ...overrides }).success).toBe(true);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a string for a number', { preferred_price: '12' }, 'preferred_price'],
    ['three decimals', { preferred_price: 10.123 }, 'preferred_price'],
    ['a float sum with a binary tail', { preferred_price: 0.1 + 0.2 }, 'preferred_price'],
    ['a zero price', { preferred_price: 0 }, 'preferred_price'],
    ['a negative profit', { preferred_profit: -1 }, 'preferred_profit'],
    ['a price over the bound', { preferred_price: 10_000_000.01 }, 'preferred_price'],
    ['a profit over the bound', { preferred_profit: 10_000_001 }, 'preferred_profit'],
    ['three decimals in min_profit', { min_profit: 1.001 }, 'min_profit'],
    ['a negative min_profit', { min_profit: -0.01 }, 'min_profit'],
    ['a string for a boolean', { enabled: 'true' }, 'enabled'],
    ['an unknown buybox approach', { buybox_approach: 'fastest' }, 'buybox_approach'],
    ['an unknown repricer approach', { repricer_approach: 'dynamic' }, 'repricer_approach'],
    ['an upper-case connector uid', { connector: 'Amazon' }, 'connector'],
    ['an empty product code', { product_code: '' }, 'product_code'],
    ['a product code of 65 characters', { product_code: 'x'.repeat(65) }, 'product_code'],
    ['a null price', { preferred_price: null }, 'preferred_price'],
  ])('refuses %s', (_case, overrides, field) => {
    // Act
    const result = createRepricerBody.safeParse({ ...minimal, ...overrides });

    // Assert
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain(field);
  });

  it.each(['product_code', 'preferred_price', 'preferred_profit'])('requires %s', (field) => {
    // Arrange
    const body: Record<string, unknown> = { ...minimal };
    delete body[field];

    // Act
    const result = createRepricerBody.safeParse(body);

    // Assert
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([field]);
  });

  it('refuses an unknown field and names it', () => {
    // Act
    const result = createRepricerBody.safeParse({ ...minimal, price: 5 });

    // Assert
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([expect.objectContaining({ code: 'unrecognized_keys', keys: ['price'] })]);
  });

  it.each([null, [], 'text', 42])('refuses a body that is not an object: %p', (body) => {
    expect(createRepricerBody.safeParse(body).success).toBe(false);
  });
});
