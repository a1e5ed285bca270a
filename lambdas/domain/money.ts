/**
 * Exact decimal arithmetic for money: amounts become integer cents (bigint) before any
 * computation, so no binary-float rounding ever reaches a price.
 */

/** A decimal number as an exact fraction `numerator / 10^scale`, from its shortest JS text. */
export const toDecimal = (value: number): { numerator: bigint; scale: number } => {
  if (!Number.isFinite(value)) throw new RangeError(`Not a finite number: ${value}`);
  const [mantissa = '0', exponentText] = String(value).toLowerCase().split('e');
  const exponent = Number(exponentText ?? 0);
  const negative = mantissa.startsWith('-');
  const [whole = '0', fraction = ''] = mantissa.replace('-', '').split('.');
  let digits = BigInt(whole + fraction);
  let scale = fraction.length - exponent;
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { numerator: negative ? -digits : digits, scale };
};

/** Whole cents of a value that has at most two decimals (callers validate that first). */
export const toCents = (value: number): bigint => {
  const { numerator, scale } = toDecimal(value);
  if (scale <= 2) return numerator * 10n ** BigInt(2 - scale);
  const divisor = 10n ** BigInt(scale - 2);
  if (numerator % divisor !== 0n) throw new RangeError(`More than two decimals: ${value}`);
  return numerator / divisor;
};

export const hasAtMostTwoDecimals = (value: number): boolean => {
  if (!Number.isFinite(value)) return false;
  const { numerator, scale } = toDecimal(value);
  return scale <= 2 || numerator % 10n ** BigInt(scale - 2) === 0n;
};

export const centsToNumber = (cents: bigint): number => Number(cents) / 100;

/** Ceiling of a rational with a positive denominator. */
export const ceilDiv = (numerator: bigint, denominator: bigint): bigint => {
  if (denominator <= 0n) throw new RangeError('Denominator must be positive');
  const quotient = numerator / denominator;
  return numerator % denominator > 0n ? quotient + 1n : quotient;
};

/** Down to a multiple of `step` (cents), also below zero (bigint division truncates toward zero). */
export const floorToStep = (cents: bigint, step: bigint): bigint => {
  const quotient = cents / step;
  return (cents % step < 0n ? quotient - 1n : quotient) * step;
};

/** Up to a multiple of `step` (cents). */
export const ceilToStep = (cents: bigint, step: bigint): bigint => ceilDiv(cents, step) * step;
