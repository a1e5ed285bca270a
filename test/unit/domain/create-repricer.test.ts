import { jest } from '@jest/globals';
import {
  chooseConnector,
  createRepricerBody,
  newRepricer,
  pricedRepricer,
  type ConnectorTypeLookup,
  type CreateRepricerError,
  type NewRepricer,
} from '../../../lambdas/domain/create-repricer.js';
import { repricerRecord, type ConnectorType, type FeeEstimates, type Product } from '../../../lambdas/domain/records.js';
import { connectorType, feeEstimate, product, repricerFields } from '../data/fixtures.js';

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
      // Filters that filter nothing: a repricer without them competes as before they existed.
      exclude_seller_ids: [],
      min_competitor_rating: null,
      competitor_stock: 'any',
      max_competitor_leadtime_days: null,
      // No price-war guard: a repricer without one never holds, as before the guard existed.
      price_war_guard: null,
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
      exclude_seller_ids: ['seller-2', 'x'.repeat(128)],
      min_competitor_rating: 3.5,
      competitor_stock: 'in_stock',
      max_competitor_leadtime_days: 365,
      price_war_guard: { undercuts: 4, cooldown_minutes: 90 },
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
    ['50 excluded sellers', { exclude_seller_ids: Array.from({ length: 50 }, (_, i) => `s${i}`) }],
    ['the lowest and highest ratings', { min_competitor_rating: 0 }],
    ['a rating of 5', { min_competitor_rating: 5 }],
    ['filters turned off with null', { min_competitor_rating: null, max_competitor_leadtime_days: null }],
    ['a leadtime maximum of 0', { max_competitor_leadtime_days: 0 }],
    ['a cost_based repricer with its unit cost and no preferred_price', { repricer_approach: 'cost_based', preferred_price: undefined, unit_cost: 40 }],
    ['a unit cost of 0 (the fees may carry the floor)', { repricer_approach: 'cost_based', preferred_price: undefined, unit_cost: 0 }],
    ['a fixed repricer with a null unit cost', { unit_cost: null }],
    ['a price-war guard', { price_war_guard: { undercuts: 1, cooldown_minutes: 10_080 } }],
    ['no price-war guard', { price_war_guard: null }],
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
    ['a seller id that is not a list', { exclude_seller_ids: 'seller-2' }, 'exclude_seller_ids'],
    ['a number among the seller ids', { exclude_seller_ids: ['seller-2', 7] }, 'exclude_seller_ids.1'],
    ['an empty seller id', { exclude_seller_ids: [''] }, 'exclude_seller_ids.0'],
    ['a seller id of 129 characters', { exclude_seller_ids: ['x'.repeat(129)] }, 'exclude_seller_ids.0'],
    ['51 excluded sellers', { exclude_seller_ids: Array.from({ length: 51 }, (_, i) => `s${i}`) }, 'exclude_seller_ids'],
    ['a null seller list', { exclude_seller_ids: null }, 'exclude_seller_ids'],
    ['a rating above 5', { min_competitor_rating: 5.01 }, 'min_competitor_rating'],
    ['a negative rating', { min_competitor_rating: -1 }, 'min_competitor_rating'],
    ['a rating as text', { min_competitor_rating: '4' }, 'min_competitor_rating'],
    ['an unknown stock filter', { competitor_stock: 'lead_time' }, 'competitor_stock'],
    ['a null stock filter', { competitor_stock: null }, 'competitor_stock'],
    ['a fractional leadtime', { max_competitor_leadtime_days: 1.5 }, 'max_competitor_leadtime_days'],
    ['a leadtime over a year', { max_competitor_leadtime_days: 366 }, 'max_competitor_leadtime_days'],
    ['a negative leadtime', { max_competitor_leadtime_days: -1 }, 'max_competitor_leadtime_days'],
    ['a unit cost on a fixed repricer', { unit_cost: 40 }, 'unit_cost'],
    ['a cost_based repricer without its unit cost', { repricer_approach: 'cost_based', preferred_price: undefined }, 'unit_cost'],
    ['a cost_based repricer given a preferred_price', { repricer_approach: 'cost_based', unit_cost: 40 }, 'preferred_price'],
    ['a unit cost as text', { repricer_approach: 'cost_based', preferred_price: undefined, unit_cost: '40' }, 'unit_cost'],
    ['a negative unit cost', { repricer_approach: 'cost_based', preferred_price: undefined, unit_cost: -1 }, 'unit_cost'],
    ['a unit cost with three decimals', { repricer_approach: 'cost_based', preferred_price: undefined, unit_cost: 1.005 }, 'unit_cost'],
    ['a guard of 0 undercuts', { price_war_guard: { undercuts: 0, cooldown_minutes: 30 } }, 'price_war_guard.undercuts'],
    ['a guard of 51 undercuts', { price_war_guard: { undercuts: 51, cooldown_minutes: 30 } }, 'price_war_guard.undercuts'],
    ['a fractional cool-down', { price_war_guard: { undercuts: 3, cooldown_minutes: 1.5 } }, 'price_war_guard.cooldown_minutes'],
    ['a cool-down over a week', { price_war_guard: { undercuts: 3, cooldown_minutes: 10_081 } }, 'price_war_guard.cooldown_minutes'],
    ['a guard without its cool-down', { price_war_guard: { undercuts: 3 } }, 'price_war_guard.cooldown_minutes'],
    ['a guard as a number', { price_war_guard: 3 }, 'price_war_guard'],
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

/** A create body as the handler has it once validated: the worked example unless told otherwise. */
const body = (overrides: Record<string, unknown> = {}) =>
  createRepricerBody.parse({ product_code: 'SKU-1', preferred_price: 100, preferred_profit: 20, ...overrides });

describe('newRepricer', () => {
  /** The connector types known to the lookup: takealot, amazon and bol. */
  const known = new Map(['takealot', 'amazon', 'bol'].map((uid) => [uid, connectorType({ uid, name: uid })]));
  const lookup = (types: ReadonlyMap<string, ConnectorType> = known) => jest.fn<ConnectorTypeLookup>((uid) => Promise.resolve(types.get(uid)));
  const twoConnectors = product({
    fee_estimates: {
      takealot: { instock: feeEstimate(5, 15), leadtime: feeEstimate(8, 20) },
      bol: { instock: feeEstimate(2, 10), leadtime: feeEstimate(2, 10) },
    },
  });

  it.each<[string, Record<string, unknown>, Product, Partial<NewRepricer>]>([
    // instock fees F 5, r 0.15: C = 100 - 15 - 5 - 20 = 60; (60 + 5 + 0) / 0.85 = 76.47.. -> 76.48
    ['the worked example: one priced connector, in stock', {}, product(), { min_price: 76.48, min_profit: 0, fixed_fulfilment_fee: 5 }],
    // leadtime fees F 8, r 0.2: C = 100 - 20 - 8 - 20 = 52; (52 + 8 + 4) / 0.8 = 80
    [
      'lead-time fees when nothing is in stock, with min_profit and the given flags',
      { min_profit: 4, enabled: false },
      product({ soh: 0 }),
      { enabled: false, min_price: 80, min_profit: 4, fixed_fulfilment_fee: 8, product: product({ soh: 0 }) },
    ],
    // no fees: 100 - 20 = 80
    [
      "the client's default connector and no fees for a product without estimates",
      {},
      product({ fee_estimates: null }),
      { min_price: 80, fixed_fulfilment_fee: 0, connector_type: known.get('amazon')!, product: product({ fee_estimates: null }) },
    ],
    // bol fees F 2, r 0.1: 100 - 20 / 0.9 = 77.77.. -> 77.78
    [
      'the named one of several connectors',
      { connector: 'bol' },
      twoConnectors,
      { min_price: 77.78, fixed_fulfilment_fee: 2, connector_type: known.get('bol')!, product: twoConnectors },
    ],
  ])('builds %s', async (_case, overrides, item, expected) => {
    // Arrange
    const connectorTypeOf = lookup();

    // Act
    const outcome = await newRepricer({ body: body(overrides), product: item, defaultConnector: 'amazon' }, connectorTypeOf);

    // Assert
    expect(outcome).toEqual({ ok: true, repricer: repricerFields({ connector_type: known.get('takealot')!, ...expected }) });
    expect(connectorTypeOf.mock.calls).toEqual([[(expected.connector_type ?? known.get('takealot')!).uid]]);
  });

  it('returns the fields in the order of the repricer record', async () => {
    const outcome = await newRepricer({ body: body(), product: product(), defaultConnector: 'amazon' }, lookup());

    expect(outcome.ok && Object.keys(outcome.repricer)).toEqual(
      Object.keys(repricerRecord.shape).filter((key) => !['id', 'uid', 'created_at', 'updated_at'].includes(key)),
    );
  });

  it.each<[string, Record<string, unknown>, Product, ReadonlyMap<string, ConnectorType>, CreateRepricerError]>([
    [
      'no connector named for a product priced on several (400)',
      {},
      twoConnectors,
      known,
      { kind: 'invalid', field: 'connector', message: 'The product is sold on several connectors; name one in "connector": bol, takealot.' },
    ],
    [
      'a named connector the product is not priced on (400)',
      { connector: 'amazon' },
      product(),
      known,
      { kind: 'invalid', field: 'connector', message: 'The product has no fee estimates for this connector; choose one of: takealot.' },
    ],
    [
      'a connector that is not a known connector type (422)',
      {},
      product(),
      new Map(),
      { kind: 'unprocessable', message: 'The connector "takealot" is not a known connector type.' },
    ],
    [
      // 100 - 90 / 0.85 = -5.88..
      'a profit the price cannot carry (422)',
      { preferred_profit: 90 },
      product(),
      known,
      { kind: 'unprocessable', message: 'The preferred profit is larger than the preferred price can carry: the minimum price would not be positive.' },
    ],
    [
      'a min_profit above the preferred profit (422)',
      { min_profit: 25 },
      product(),
      known,
      { kind: 'unprocessable', message: 'min_profit must not exceed preferred_profit.' },
    ],
    [
      'a commission of 100 % (422)',
      {},
      product({ fee_estimates: { takealot: { instock: feeEstimate(5, 100), leadtime: feeEstimate(5, 100) } } }),
      known,
      { kind: 'unprocessable', message: 'The commission percentage is 100 or more, so no price can carry a profit.' },
    ],
  ])('refuses %s', async (_case, overrides, item, types, error) => {
    // Act
    const outcome = await newRepricer({ body: body(overrides), product: item, defaultConnector: 'amazon' }, lookup(types));

    // Assert
    expect(outcome).toEqual({ ok: false, error });
  });

  it('looks no connector type up when the body cannot name one', async () => {
    // Arrange
    const connectorTypeOf = lookup();

    // Act
    await newRepricer({ body: body(), product: twoConnectors, defaultConnector: 'amazon' }, connectorTypeOf);

    // Assert
    expect(connectorTypeOf).not.toHaveBeenCalled();
  });
});

describe('pricedRepricer', () => {
  it('keeps only the preferences of what it is given, and computes the rest', () => {
    // Arrange: a create body carries product_code and connector too; they are not repricer fields
    const given = { ...body(), connector: 'takealot', product_code: 'SKU-1' };

    // Act
    const outcome = pricedRepricer(given, product(), connectorType());

    // Assert
    expect(outcome).toEqual({ ok: true, repricer: repricerFields() });
  });

  it('gives the reason when the preferences cannot be priced', () => {
    expect(pricedRepricer({ ...body(), preferred_price: 10 }, product(), connectorType())).toEqual({
      ok: false,
      reason: expect.stringMatching(/cannot carry|not be positive/),
    });
  });
});
