import fc from 'fast-check';
import { competitorsKey, competitorsPrefix, ID_WIDTH, idKey, MAX_ID, priceKey, timeKey } from '../../../../lambdas/data/table/sort-keys.js';
import { MAX_COMPETITORS } from '../../../../lambdas/domain/records.js';
import { fcParameters, fcRuns } from '../../../support/seed.js';

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);
const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const id = fc.integer({ min: 1, max: MAX_ID });
const competitors = fc.integer({ min: 0, max: MAX_COMPETITORS });
const cents = fc.integer({ min: 0, max: 1_000_000_000 });
const millis = fc.integer({ min: 0, max: Date.parse('2200-01-01T00:00:00.000Z') });

/** Each encoding of (value, id) with the value as a number, for brute-force comparison. */
const ENCODINGS = [
  ['competitorsKey', competitors, (value: number, n: number) => competitorsKey(value, n)],
  ['priceKey', cents, (value: number, n: number) => priceKey(value / 100, n)],
  ['timeKey', millis, (value: number, n: number) => timeKey(new Date(value).toISOString(), n)],
] as const;

describe('idKey and competitorsPrefix', () => {
  it.each([
    [1, '00000001'],
    [35, '0000000z'],
    [36, '00000010'],
    [MAX_ID, 'zzzzzzzz'],
  ])('idKey(%p) = %p', (n, key) => {
    expect(idKey(n)).toBe(key);
  });

  it.each([-1, 36 ** ID_WIDTH])('idKey refuses %p', (n) => {
    expect(() => idKey(n)).toThrow(RangeError);
  });

  it.each([
    [0, '0000'],
    [5, '0005'],
    [1_000_000, 'lfls'],
  ])('competitorsPrefix(%p) = %p', (count, prefix) => {
    expect(competitorsPrefix(count)).toBe(prefix);
  });

  it('competitorsPrefix refuses a count that does not fit 4 digits', () => {
    expect(() => competitorsPrefix(36 ** 4)).toThrow(RangeError);
  });
});

describe('order keys', () => {
  it.each([
    ['competitorsKey(7, 42)', competitorsKey(7, 42), '0007' + '00000016'],
    ['priceKey(19.99, 42)', priceKey(19.99, 42), '00001jj' + '00000016'],
    ['priceKey(10000000, 42)', priceKey(10_000_000, 42), '0gjdgxs' + '00000016'],
    ['timeKey', timeKey('2026-01-02T03:04:05.678Z', 42), Date.parse('2026-01-02T03:04:05.678Z').toString(36).padStart(9, '0') + '00000016'],
  ])('%s', (_name, key, expected) => {
    expect(key).toBe(expected);
  });

  it('refuses a price with more than two decimals', () => {
    expect(() => priceKey(1.005, 1)).toThrow(RangeError);
  });

  it('idKey orders as the ids do', () => {
    fc.assert(
      fc.property(id, id, (a, b) => {
        expect(compareStrings(idKey(a), idKey(b))).toBe(sign(a - b));
        expect(idKey(a)).toHaveLength(ID_WIDTH);
      }),
      fcParameters({ numRuns: fcRuns(500, 2500) }),
    );
  });

  it.each(ENCODINGS)('%s orders as (value, id) numbers, with one width, ending with the id key', (_name, values, encode) => {
    fc.assert(
      fc.property(values, id, values, id, (valueA, idA, valueB, idB) => {
        const a = encode(valueA, idA);
        const b = encode(valueB, idB);
        expect(compareStrings(a, b)).toBe(sign(valueA - valueB) || sign(idA - idB));
        expect(a).toHaveLength(b.length);
        expect(a.endsWith(idKey(idA))).toBe(true);
      }),
      fcParameters({ numRuns: fcRuns(500, 2500) }),
    );
  });

  it.each(ENCODINGS)('%s breaks ties of one value by id', (_name, values, encode) => {
    fc.assert(
      fc.property(values, id, id, (value, idA, idB) => {
        expect(compareStrings(encode(value, idA), encode(value, idB))).toBe(sign(idA - idB));
      }),
      fcParameters(),
    );
  });

  it('puts every key of at least n competitors at or after competitorsPrefix(n), and every other key before it', () => {
    fc.assert(
      fc.property(competitors, id, competitors, (count, n, gte) => {
        expect(competitorsKey(count, n) >= competitorsPrefix(gte)).toBe(count >= gte);
      }),
      fcParameters({ numRuns: fcRuns(500, 2500) }),
    );
  });
});
