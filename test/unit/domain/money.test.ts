import fc from 'fast-check';
import { ceilDiv, centsToNumber, hasAtMostTwoDecimals, toCents, toDecimal } from '../../../lambdas/domain/money.js';
import { fcParameters } from '../../support/seed.js';

describe('toDecimal', () => {
  it.each([
    [19.99, 1999n, 2],
    [100, 100n, 0],
    [0, 0n, 0],
    [-2.5, -25n, 1],
    [1e-7, 1n, 7], // String(1e-7) is "1e-7": mantissa 1, scale 0 + 7
    [1.5e-7, 15n, 8],
    [1e21, 10n ** 21n, 0], // "1e+21": a positive exponent scales the digits up
    [0.30000000000000004, 30000000000000004n, 17],
  ])('reads %p as %p / 10^%p', (value, numerator, scale) => {
    // Act
    const decimal = toDecimal(value);

    // Assert
    expect(decimal).toEqual({ numerator, scale });
  });

  it.each([NaN, Infinity, -Infinity])('refuses %p', (value) => {
    expect(() => toDecimal(value)).toThrow(RangeError);
  });
});

describe('toCents', () => {
  it.each([
    [19.99, 1999n],
    [0.1, 10n],
    [1.1, 110n],
    [2.5, 250n],
    [100, 10000n],
    [10_000_000, 1_000_000_000n],
    [0, 0n],
    [0.01, 1n],
  ])('%p is %p cents', (value, cents) => {
    expect(toCents(value)).toBe(cents);
  });

  it.each([
    ['0.1 + 0.2', 0.1 + 0.2],
    ['1e-7', 1e-7],
    ['1.005', 1.005],
    ['19.999', 19.999],
  ])('refuses %s, which has more than two decimals', (_label, value) => {
    expect(() => toCents(value)).toThrow(RangeError);
  });

  it('reads every whole number of cents back exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_000_000 }), (cents) => {
        expect(toCents(centsToNumber(BigInt(cents)))).toBe(BigInt(cents));
      }),
      fcParameters(),
    );
  });
});

describe('hasAtMostTwoDecimals', () => {
  it.each([
    [19.99, true],
    [10, true],
    [0.3, true],
    [123.45, true],
    [1e21, true],
    [0, true],
    [0.1 + 0.2, false], // 0.30000000000000004
    [1e-7, false],
    [1.005, false],
    [0.001, false],
    [NaN, false],
    [Infinity, false],
  ])('%p -> %p', (value, expected) => {
    expect(hasAtMostTwoDecimals(value)).toBe(expected);
  });
});

describe('centsToNumber', () => {
  it.each([
    [7648n, 76.48],
    [1n, 0.01],
    [0n, 0],
    [1_000_000_000n, 10_000_000],
    [1485n, 14.85],
  ])('%p cents is %p', (cents, value) => {
    expect(centsToNumber(cents)).toBe(value);
  });
});

describe('ceilDiv', () => {
  it.each([
    [7n, 2n, 4n],
    [6n, 2n, 3n],
    [1n, 3n, 1n],
    [0n, 3n, 0n],
    [-5n, 2n, -2n], // ceil(-2.5) = -2
    [-6n, 3n, -2n],
    [-1n, 3n, 0n],
  ])('ceil(%p / %p) = %p', (numerator, denominator, expected) => {
    expect(ceilDiv(numerator, denominator)).toBe(expected);
  });

  it.each([0n, -1n])('refuses the denominator %p', (denominator) => {
    expect(() => ceilDiv(1n, denominator)).toThrow(RangeError);
  });

  it('agrees with Math.ceil on small integers', () => {
    fc.assert(
      fc.property(fc.integer({ min: -100_000, max: 100_000 }), fc.integer({ min: 1, max: 1000 }), (n, d) => {
        expect(ceilDiv(BigInt(n), BigInt(d))).toBe(BigInt(Math.ceil(n / d)));
      }),
      fcParameters(),
    );
  });
});
