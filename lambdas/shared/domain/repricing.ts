import { passesCompetitorFilters, type EngineFilters, type FilteredOffer } from './competitor-filters.js';
import { ceilToStep as ceilTo, centsToNumber, floorToStep as floorTo, toCents } from './money.js';
import type { PriceChange } from './records.js';

/**
 * The repricing engine (docs/repricing.md): what price a repricer wants for the
 * client's own offer of its product on its connector, given the competitors' offers. Pure and
 * exact: every amount is integer cents.
 *
 * `buybox_approach: cheapest` with `repricer_approach: fixed`:
 *  - competitors are the other sellers' buyable offers of the same product and connector that
 *    pass the repricer's competitor filters (competitor-filters.ts);
 *  - none: the target is `preferred_price` (`no_competition`);
 *  - else `lowest - step`, rounded down to the step grid, then clamped: below `min_price` it is
 *    the floor rounded up to the grid (`floor`: never under the floor, even to win), above
 *    `preferred_price` the ceiling rounded down to it (`ceiling`), else `undercut`.
 * A decision is only made when the target differs from the own offer's price and from the
 * last decision for that offer, so the same inputs never decide twice and a price that comes
 * back from the marketplace starts no loop.
 */
export { PRICE_CHANGE_REASON_VALUES as PRICE_CHANGE_REASONS } from './records.js';
export type PriceChangeReason = PriceChange['reason'];

export { DEFAULT_PRICE_STEP } from './records.js';
/** Days a price change is kept (a stack parameter; DynamoDB's TTL deletes it after). */
export const DEFAULT_PRICE_CHANGE_RETENTION_DAYS = 90;

/** The filters are optional: left out, they filter nothing (the defaults of a repricer). */
export interface EngineRepricer extends EngineFilters {
  readonly enabled: boolean;
  readonly min_price: number;
  readonly preferred_price: number;
  readonly connector: string;
}

export interface EngineOffer extends FilteredOffer {
  readonly offer_id: string;
  readonly offer_price: number;
  readonly offer_status: string;
  readonly connector: string;
  /** Whether the client itself sells it. */
  readonly own: boolean;
}

export interface Target {
  readonly price: number;
  readonly reason: PriceChangeReason;
  /** The lowest competitor, when there is one. */
  readonly lowest?: { readonly price: number; readonly offerId: string };
}

export interface Decision extends Target {
  readonly offerId: string;
  readonly oldPrice: number;
}

export const BUYABLE = 'buyable';

/** The target price for the repricer's offer; undefined when no price on the grid lies between floor and ceiling. */
export const targetPrice = (repricer: EngineRepricer, competitors: readonly EngineOffer[], priceStep: number): Target | undefined => {
  const step = toCents(priceStep);
  if (step <= 0n) throw new RangeError(`The price step must be positive, got ${priceStep}`);
  const floor = ceilTo(toCents(repricer.min_price), step);
  const ceiling = floorTo(toCents(repricer.preferred_price), step);
  if (floor > ceiling) return undefined;
  const buyable = competitors.filter(
    (offer) => !offer.own && offer.connector === repricer.connector && offer.offer_status === BUYABLE && passesCompetitorFilters(repricer, offer),
  );
  if (buyable.length === 0) return { price: centsToNumber(ceiling), reason: 'no_competition' };
  // Lowest price first; among equal prices the smallest offer id, so the result never depends on input order.
  const lowest = [...buyable].sort((a, b) => Number(toCents(a.offer_price) - toCents(b.offer_price)) || (a.offer_id < b.offer_id ? -1 : 1))[0]!;
  const wanted = floorTo(toCents(lowest.offer_price) - step, step);
  const [cents, reason]: [bigint, PriceChangeReason] = wanted < floor ? [floor, 'floor'] : wanted > ceiling ? [ceiling, 'ceiling'] : [wanted, 'undercut'];
  return { price: centsToNumber(cents), reason, lowest: { price: lowest.offer_price, offerId: lowest.offer_id } };
};

/**
 * The decisions of one repricer: one per own offer on its connector whose price is not yet the
 * target, unless that target was already decided last time.
 */
export const decide = (
  repricer: EngineRepricer,
  offers: readonly EngineOffer[],
  priceStep: number,
  lastDecided: (offerId: string) => number | undefined,
): Decision[] => {
  if (!repricer.enabled) return [];
  const target = targetPrice(repricer, offers, priceStep);
  if (!target) return [];
  return offers
    .filter((offer) => offer.own && offer.connector === repricer.connector)
    .filter((offer) => toCents(offer.offer_price) !== toCents(target.price) && lastDecided(offer.offer_id) !== target.price)
    .map((offer) => ({ ...target, offerId: offer.offer_id, oldPrice: offer.offer_price }));
};
