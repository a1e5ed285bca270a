import {
  connectorTypeFields as connectorTypeSchema,
  feeEstimates,
  money,
  offerFields as offerSchema,
  offerRecord,
  productFields as productSchema,
  repricerRecord,
  timestamp,
} from '../../../lambdas/domain/records.js';
import { connectorTypeFields, offer, offerFields, productFields, repricer } from '../data/fixtures.js';

describe('money', () => {
  it.each([
    [0, true],
    [19.99, true],
    [10_000_000, true],
    [-0.01, false],
    [10_000_000.01, false],
    [1.005, false],
  ])('%p valid: %p', (value, valid) => {
    expect(money.safeParse(value).success).toBe(valid);
  });
});

describe('timestamp', () => {
  it.each([
    ['2026-11-22T10:15:30.123Z', true],
    ['2026-11-22T10:15:30Z', false], // milliseconds are required
    ['2026-11-22T10:15:30.1234Z', false],
    ['2026-11-22 10:15:30.123Z', false],
  ])('%p valid: %p', (value, valid) => {
    expect(timestamp.safeParse(value).success).toBe(valid);
  });
});

describe('record schemas', () => {
  it('accept the fixtures', () => {
    expect(productSchema.parse(productFields())).toEqual(productFields());
    expect(connectorTypeSchema.parse(connectorTypeFields())).toEqual(connectorTypeFields());
    expect(offerSchema.parse(offerFields())).toEqual(offerFields());
    expect(offerRecord.parse(offer())).toEqual(offer());
  });

  it.each<[string, Record<string, unknown>]>([
    ['an unknown field', { colour_code: 'w' }],
    ['a fractional soh', { soh: 1.5 }],
    ['a negative soh', { soh: -1 }],
    ['an ftp image', { main_image: 'ftp://cdn.example.com/a.jpg' }],
    ['an upper-case connector in fee_estimates', { fee_estimates: { Takealot: productFields().fee_estimates!.takealot } }],
  ])('product refuses %s', (_case, overrides) => {
    expect(productSchema.safeParse({ ...productFields(), ...overrides }).success).toBe(false);
  });

  it.each<[string, Record<string, unknown>]>([
    ['an unknown stock_status', { stock_status: 'gone' }],
    ['a numeric rating_count', { rating_count: 120 }],
    ['a rating above 5', { rating_avg: 5.1 }],
    ['a fractional total_competitors', { total_competitors: 1.5 }],
    ['an empty seller_id', { seller_id: '' }],
  ])('offer refuses %s', (_case, overrides) => {
    expect(offerSchema.safeParse({ ...offerFields(), ...overrides }).success).toBe(false);
  });

  it('fee estimates need both stock modes and a percentage of at most 100', () => {
    const estimate = { commission: 1, fulfilment: 2, commission_percentage: 10 };
    expect(feeEstimates.safeParse({ takealot: { instock: estimate } }).success).toBe(false);
    expect(feeEstimates.safeParse({ takealot: { instock: estimate, leadtime: { ...estimate, commission_percentage: 101 } } }).success).toBe(false);
    expect(feeEstimates.safeParse({ takealot: { instock: estimate, leadtime: estimate } }).success).toBe(true);
  });

  it('a repricer record nests its connector type and product in full', () => {
    // Arrange
    const record = repricer({
      id: 1,
      uid: '7d8a0c3e-1b2c-4d5e-8f90-123456789abc',
      created_at: '2026-11-22T10:15:30.123Z',
      updated_at: '2026-11-22T10:15:30.123Z',
    });

    // Act & Assert
    expect(repricerRecord.parse(record)).toEqual(record);
    expect(repricerRecord.safeParse({ ...record, product: { code: 'SKU-1' } }).success).toBe(false);
    expect(repricerRecord.safeParse({ ...record, uid: 'not-a-uuid' }).success).toBe(false);
  });
});
