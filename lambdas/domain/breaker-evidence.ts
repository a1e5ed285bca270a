import { toCents } from './money.js';

/**
 * What the circuit breaker counts (docs/design.md, "The marketplace loop", "Safety state is owned"): a sharp drop
 * that follows what the rivals did is the market; one the market does not explain is what a
 * glitch looks like. A drop is explained when the rival it follows is priced like the market
 * around it: not more than `outlierPercent` under the next rival of the product (or, with no
 * other rival, under the offer's own current price). A rival read at a fraction of its usual
 * price (a storefront glitch, a page shape misread) stands out from the rest; rivals
 * undercutting each other a step at a time never do. Pure, exact in cents.
 */
export const DEFAULT_OUTLIER_PERCENT = 30;

export interface DropEvidence {
  /** The eligible rivals' prices the decision was made from (any order). */
  readonly rivalPrices: readonly number[];
  /** The own offer's price before the push. */
  readonly currentPrice: number;
}

export const dropExplained = ({ rivalPrices, currentPrice }: DropEvidence, outlierPercent: number): boolean => {
  const sorted = rivalPrices.map(toCents).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const [lowest, next] = sorted;
  // No rival: a drop toward nobody is never the market's doing.
  if (lowest === undefined) return false;
  const reference = next ?? toCents(currentPrice);
  return lowest * 100n >= reference * BigInt(100 - outlierPercent);
};
