import { toCents } from '../../domain/money.js';

/**
 * Fixed-width, lowercase base-36 encodings: string order equals numeric order, so each sort
 * order of the API is the byte order of one key. Every sort key ends with the item's id key,
 * which breaks ties by id and keeps keys unique.
 */
const fixed = (value: number | bigint, width: number): string => {
  const text = value.toString(36);
  if (text.length > width || value < 0) throw new RangeError(`${value} does not fit ${width} base-36 digits`);
  return text.padStart(width, '0');
};

export const ID_WIDTH = 8; // 2.8e12 ids
const COMPETITORS_WIDTH = 4; // up to 1.68e6
const CENTS_WIDTH = 7; // up to 7.8e10 cents
const MILLIS_WIDTH = 9; // epoch milliseconds up to the year 5138

/** Ids beyond this have no key: no such offer or repricer can exist. */
export const MAX_ID = 36 ** ID_WIDTH - 1;

export const idKey = (id: number): string => fixed(id, ID_WIDTH);
/** The competitor-count part of a key: every key of that count or more sorts at or after it. */
export const competitorsPrefix = (totalCompetitors: number): string => fixed(totalCompetitors, COMPETITORS_WIDTH);
export const competitorsKey = (totalCompetitors: number, id: number): string => competitorsPrefix(totalCompetitors) + idKey(id);
export const priceKey = (price: number, id: number): string => fixed(toCents(price), CENTS_WIDTH) + idKey(id);
/** An ISO timestamp as fixed-width epoch milliseconds, then the id. */
export const timeKey = (timestamp: string, id: number): string => fixed(Date.parse(timestamp), MILLIS_WIDTH) + idKey(id);
