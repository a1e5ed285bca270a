import * as z from 'zod';
import { hasAtMostTwoDecimals, toCents } from './money.js';

/**
 * The in-stock premium of a product on a connector (docs/repricing.md): how much dearer, in
 * percent of its price, an in-stock offer may be than a cheaper leadtime offer and still take
 * the Best Price slot. Takealot sets it per product and does not publish it; the storefront
 * reader narrows an interval that holds it from what each page shows.
 *
 * Both ends are percents exact to two decimals, the low end rounded down and the high end up,
 * so the interval always holds the true premium. Which end is safe depends on the side: an
 * in-stock offer counts on the low end (it never relies on more premium than was seen), a
 * leadtime offer on the high end.
 */
export interface InStockPremium {
  readonly low_percent: number;
  readonly high_percent: number;
  /** The storefront reads that narrowed the interval; 0: the stated default. */
  readonly observations: number;
}

/** Before any observation: no premium is relied on by an in-stock offer, and a leadtime offer allows for the most seen on Takealot. */
export const DEFAULT_IN_STOCK_PREMIUM: InStockPremium = { low_percent: 0, high_percent: 10, observations: 0 };

/** How the interval is stored and shown: the percents are exact to two decimals, low never above high. */
const percent = z.number().min(0).max(100).refine(hasAtMostTwoDecimals, { message: 'Must have at most 2 decimals.' });
export const inStockPremium = z
  .strictObject({ low_percent: percent, high_percent: percent, observations: z.int().min(0) })
  .refine((premium) => premium.low_percent <= premium.high_percent, { message: 'low_percent must not exceed high_percent.' });

/** What the premium needs of a page's offer: the page's price, stock and whether it holds the Best Price slot (a market view's offer). */
export interface PremiumPageOffer {
  readonly price: number;
  readonly stock_status: 'in_stock' | 'lead_time';
  readonly winning: boolean;
}

export interface PremiumPage {
  readonly offers: readonly PremiumPageOffer[];
}

/** Percents in hundredths: every bound is an integer there. */
type Hundredths = bigint;
interface Bounds {
  readonly low: Hundredths;
  readonly high: Hundredths;
}

/**
 * The bounds no premium can leave: at 100 % every in-stock offer would count as free. A page only
 * ever bounds one side; the other stays at its limit.
 */
const LIMITS: Bounds = { low: 0n, high: 10_000n };

const hundredthsOf = (premium: InStockPremium): Bounds => ({ low: toCents(premium.low_percent), high: toCents(premium.high_percent) });
const percentOf = (value: Hundredths): number => Number(value) / 100;
const floorDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? a / b : -((-a + b - 1n) / b));
const ceilDiv = (a: bigint, b: bigint): bigint => -floorDiv(-a, b);

/** The premium (hundredths) at which an in-stock offer at `inStock` cents counts as a leadtime offer at `leadtime` cents. */
const gap = (inStock: bigint, leadtime: bigint) => ({
  down: floorDiv(10_000n * (inStock - leadtime), inStock),
  up: ceilDiv(10_000n * (inStock - leadtime), inStock),
});

/**
 * What one page says of the premium, as Takealot awards the Best Price slot (tools/market/buy-box.ts
 * states the rule the simulator follows): an in-stock offer counts at `price * (100 - premium) / 100`,
 * a leadtime offer at its price, the lowest counts wins, and a tie may go either way (the page does
 * not show the tie rule's listing order), so every bound holds with equality.
 *
 * The holder beat every other offer on the page, not one: an in-stock holder needs at least the gap
 * to the cheapest leadtime offer below it (a lower bound); a leadtime holder beat every in-stock offer,
 * so the premium is at most the gap to the cheapest of them (an upper bound). Offers of the holder's
 * own stock mode say nothing of the premium, but one of them cheaper than the holder is a page no
 * premium explains, as is an in-stock offer cheaper than a leadtime holder: `unexplained`.
 * `silent`: no holder, or nothing on the page bounds the premium.
 */
export const premiumBoundsOf = (page: PremiumPage): Bounds | 'silent' | 'unexplained' => {
  const holders = page.offers.filter((offer) => offer.winning);
  if (holders.length !== 1) return 'silent';
  const holder = holders[0]!;
  const holderCents = toCents(holder.price);
  const rivals = page.offers.filter((offer) => offer !== holder).map((offer) => ({ inStock: offer.stock_status === 'in_stock', cents: toCents(offer.price) }));
  const holderInStock = holder.stock_status === 'in_stock';
  if (rivals.some((rival) => rival.inStock === holderInStock && rival.cents < holderCents)) return 'unexplained';
  const others = rivals.filter((rival) => rival.inStock !== holderInStock);
  if (others.length === 0) return 'silent';
  if (holderInStock) {
    const low = others.map((rival) => gap(holderCents, rival.cents).down).reduce((most, bound) => (bound > most ? bound : most), LIMITS.low);
    // Below the holder, (h - l) / h stays under 1: the bound is always under 100 %.
    return low === LIMITS.low ? 'silent' : { low, high: LIMITS.high };
  }
  const high = others.map((rival) => gap(rival.cents, holderCents).up).reduce((least, bound) => (bound < least ? bound : least), LIMITS.high);
  return high < LIMITS.low ? 'unexplained' : high === LIMITS.high ? 'silent' : { low: LIMITS.low, high };
};

const intersect = (a: Bounds, b: Bounds): Bounds | undefined => {
  const low = a.low > b.low ? a.low : b.low;
  const high = a.high < b.high ? a.high : b.high;
  return low <= high ? { low, high } : undefined;
};

const premiumOf = (bounds: Bounds, observations: number): InStockPremium => ({
  low_percent: percentOf(bounds.low),
  high_percent: percentOf(bounds.high),
  observations,
});

/**
 * The interval after one storefront page (premiumBoundsOf): narrowed by what the page says, or the
 * same object when it says nothing new (so the reader writes only a change). `observations` counts
 * the reads the interval rests on: each read that narrowed it.
 *
 * A page that contradicts the interval (Takealot changed the premium, or the page was a glitch)
 * never leaves it empty: the interval starts again from the stated default narrowed by that page
 * alone (the page itself when it lies outside the default too), with `observations` 1. The page is
 * the newest word on the premium, and a glitch is undone the same way by the next true page. A page
 * no premium explains at all is left out.
 */
export const observePremium = (interval: InStockPremium, page: PremiumPage): InStockPremium => {
  const seen = premiumBoundsOf(page);
  if (seen === 'silent' || seen === 'unexplained') return interval;
  const before = hundredthsOf(interval);
  const narrowed = intersect(before, seen);
  if (narrowed) return narrowed.low === before.low && narrowed.high === before.high ? interval : premiumOf(narrowed, interval.observations + 1);
  return premiumOf(intersect(hundredthsOf(DEFAULT_IN_STOCK_PREMIUM), seen) ?? seen, 1);
};

export const samePremium = (a: InStockPremium, b: InStockPremium): boolean =>
  a.low_percent === b.low_percent && a.high_percent === b.high_percent && a.observations === b.observations;
