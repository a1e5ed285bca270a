/**
 * The in-stock premium of a product on a connector (DESIGN section 8): how much dearer, in
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
