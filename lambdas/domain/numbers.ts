import * as z from 'zod';

/**
 * The one rule for numbers the service stores: finite and within what a DynamoDB number holds,
 * so an accepted value is never one a later write fails on. DynamoDB numbers have at most 38
 * significant digits and a magnitude of 1E-130 to 9.9999999999999999999999999999999999999E+125
 * (or zero). A JavaScript number has at most 17 significant digits, so only the range can fail:
 * `1e-200` passes `min(0)` but no write of it succeeds.
 */
export const MIN_STORABLE_MAGNITUDE = 1e-130;
/** The next power of ten above DynamoDB's largest number; every double below it has at most 17 digits. */
export const STORABLE_MAGNITUDE_BOUND = 1e126;

export const STORABLE_NUMBER_MESSAGE = 'Must be a finite number that is zero or of magnitude from 1e-130 to below 1e126.';

export const isStorableNumber = (value: number): boolean => {
  if (!Number.isFinite(value)) return false;
  const magnitude = Math.abs(value);
  return magnitude === 0 || (magnitude >= MIN_STORABLE_MAGNITUDE && magnitude < STORABLE_MAGNITUDE_BOUND);
};

/** A number schema that refuses what DynamoDB cannot store (it stays a number schema, so bounds can follow). */
export const storableNumber = (): z.ZodNumber => z.number().refine(isStorableNumber, STORABLE_NUMBER_MESSAGE);
