import { deflateRawSync } from 'node:zlib';
import { REPRICER_LIST, storedRepricer } from '../../../../lambdas/data/repricers/list.js';
import type { Repricer } from '../../../../lambdas/domain/records.js';
import { repricer } from '../fixtures.js';

/**
 * Repricers stored and listed before competitor filters existed read with the filters' defaults
 * (which filter nothing), in the record's field order, so they decide and answer as before.
 */
const FILTERS = ['exclude_seller_ids', 'min_competitor_rating', 'competitor_stock', 'max_competitor_leadtime_days'] as const;
const DEFAULTS = { exclude_seller_ids: [], min_competitor_rating: null, competitor_stock: 'any', max_competitor_leadtime_days: null };

/** A repricer record as it was written before the filters: the same record without their fields. */
const withoutFilters = (record: Repricer): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).filter(([field]) => !(FILTERS as readonly string[]).includes(field)));

/** The template of the listing dictionary used before the filters (dictionary 0): its bytes must never change. */
const stamp = '2026-01-01T00:00:00.000Z';
const firstTemplate = {
  id: 0,
  uid: '00000000-0000-4000-8000-000000000000',
  buybox_approach: 'cheapest',
  repricer_approach: 'fixed',
  enabled: true,
  preferred_price: 0,
  preferred_profit: 0,
  min_price: 0,
  min_profit: 0,
  fixed_fulfilment_fee: 0,
  connector_type: { id: 0, uid: '', name: '', logo: 'https://', website: 'https://', created_at: stamp, updated_at: stamp },
  product: {
    id: 0,
    code: '',
    title: '',
    description: '',
    brand: '',
    colour: '',
    barcode: '',
    type: null,
    material: null,
    parent_code: null,
    images: null,
    main_image: 'https://',
    retail_price: 0,
    soh: 0,
    height_cm: 0,
    length_cm: 0,
    width_cm: 0,
    weight_g: 0,
    fee_estimates: {
      '': { instock: { commission: 0, fulfilment: 0, commission_percentage: 0 }, leadtime: { commission: 0, fulfilment: 0, commission_percentage: 0 } },
    },
    created_at: stamp,
    updated_at: stamp,
  },
  created_at: stamp,
  updated_at: stamp,
};
const firstDictionaryListing = (record: unknown) =>
  Buffer.concat([Buffer.of(0), deflateRawSync(Buffer.from(JSON.stringify(record)), { dictionary: Buffer.from(JSON.stringify(firstTemplate)) })]);

describe('stored repricers before competitor filters', () => {
  it('read with the defaults, in the order of the record', () => {
    // Arrange
    const current = repricer({ id: 12 });
    const old = { entity: 'repricer', sv: 1, version: 3, record: withoutFilters(current) };

    // Act
    const read = storedRepricer.parse(old);

    // Assert
    expect(read.record).toEqual({ ...current, ...DEFAULTS });
    expect(Object.keys(read.record)).toEqual(Object.keys(current));
  });

  it('read as written when they have filters, and refuse a bad filter', () => {
    const filtered = repricer({ exclude_seller_ids: ['sister'], min_competitor_rating: 4, competitor_stock: 'in_stock', max_competitor_leadtime_days: 0 });
    expect(storedRepricer.parse({ entity: 'repricer', sv: 1, version: 1, record: filtered }).record).toEqual(filtered);
    expect(storedRepricer.safeParse({ entity: 'repricer', sv: 1, version: 1, record: { ...filtered, competitor_stock: 'never' } }).success).toBe(false);
  });

  it('decode from listings written with the first dictionary', () => {
    // Arrange
    const current = repricer({ id: 12, enabled: false });

    // Act
    const decoded = REPRICER_LIST.codec.decode(firstDictionaryListing(withoutFilters(current)));

    // Assert
    expect(decoded).toEqual({ ...current, ...DEFAULTS });
  });

  it('are listed with the second dictionary from now on, filters and all', () => {
    // Arrange
    const filtered = repricer({ exclude_seller_ids: ['sister', 'outlet'], min_competitor_rating: 3.5 });

    // Act
    const bytes = REPRICER_LIST.codec.encode(filtered);

    // Assert
    expect(bytes[0]).toBe(1);
    expect(REPRICER_LIST.codec.decode(bytes)).toEqual(filtered);
  });
});

describe('stored repricers before cost_based and the price-war guard', () => {
  const withoutCostAndGuard = (record: Repricer): Record<string, unknown> => {
    const { unit_cost: _cost, price_war_guard: _guard, ...rest } = record;
    return rest;
  };

  it('read as fixed without a guard, in the order of the record, with or without filters', () => {
    const current = repricer({ id: 14, exclude_seller_ids: ['sister'] });
    const read = storedRepricer.parse({ entity: 'repricer', sv: 1, version: 2, record: withoutCostAndGuard(current) });
    expect(read.record).toEqual({ ...current, unit_cost: null, price_war_guard: null });
    expect(Object.keys(read.record)).toEqual(Object.keys(current));

    const older = storedRepricer.parse({ entity: 'repricer', sv: 1, version: 2, record: withoutFilters(repricer({ id: 15 })) });
    expect(Object.keys(older.record)).toEqual(Object.keys(current));
  });

  it('decode from listings written with the first dictionary, before filters, cost and guard', () => {
    const current = repricer({ id: 16 });
    const oldest = withoutFilters(current);
    delete oldest.unit_cost;
    delete oldest.price_war_guard;
    expect(REPRICER_LIST.codec.decode(firstDictionaryListing(oldest))).toEqual(current);
  });

  it('keep a guard and a unit cost when they have them', () => {
    const guarded = repricer({ repricer_approach: 'cost_based', unit_cost: 40, price_war_guard: { undercuts: 3, cooldown_minutes: 30 } });
    expect(REPRICER_LIST.codec.decode(REPRICER_LIST.codec.encode(guarded))).toEqual(guarded);
  });
});
