import type { BuyboxApproach } from '../approaches.js';
import type { InStockPremium } from '../in-stock-premium.js';
import { floorToStep, toCents } from '../money.js';

/**
 * What a strategy (one per `buybox_approach`, registered in table.ts) is given and what it
 * gives back (docs/repricing.md, "Approaches"). The competitor filters have run before it and
 * the bounds run after it (repricing.ts), so a strategy only says how far under which rivals
 * the price must be: a list of steps, each naming a rival, the rule applied to it and the
 * highest grid price that rule allows (its `limit`). The raw target is the lowest limit; no
 * step: the repricer is alone (the ceiling). Pure and exact: every amount in cents.
 */
export type StockStatus = 'in_stock' | 'lead_time';

/** A competitor no filter excluded, as a strategy reads it. */
export interface Rival {
  readonly offer_id: string;
  readonly seller_id: string | null;
  readonly price: number;
  readonly cents: bigint;
  /** Null when the offer does not say (the demo data's engine offers): no premium is assumed either way. */
  readonly stock_status: StockStatus | null;
}

export interface StrategyInput {
  /** Cheapest first, then by offer id: the order never depends on the input's. */
  readonly rivals: readonly Rival[];
  /** The own offer's stock mode on the connector; null when unknown (then no premium is assumed). */
  readonly ownStock: StockStatus | null;
  readonly stepCents: bigint;
  readonly premium: InStockPremium;
}

/**
 * The rules a step applies to its rival:
 *  - `undercut`: one step under its price, rounded down to the grid;
 *  - `match`: its price, rounded down to the grid;
 *  - `in_stock_premium`: one step under the price that would tie with it for Best Price once the
 *    in-stock premium is counted (an in-stock own offer against a leadtime rival may be dearer
 *    by the premium's low end; a leadtime own offer against an in-stock rival must be cheaper by
 *    its high end), rounded down to the grid.
 */
export const STEP_RULES = ['undercut', 'match', 'in_stock_premium'] as const;
export type StepRule = (typeof STEP_RULES)[number];

export interface StrategyStep {
  readonly rule: StepRule;
  readonly rival: Rival;
  /** The premium the rule counted on (`in_stock_premium` only), in percent. */
  readonly premiumPercent: number | null;
  readonly limitCents: bigint;
}

export interface Strategy {
  readonly approach: BuyboxApproach;
  readonly steps: (input: StrategyInput) => StrategyStep[];
}

const WHOLE = 10_000n;
/** A percent exact to two decimals, in hundredths of a percent (0-10000). */
const hundredthsOf = (percent: number): bigint => {
  const value = toCents(percent);
  return value < 0n ? 0n : value > WHOLE ? WHOLE : value;
};

/**
 * The highest grid price a rule allows against a rival; undefined when the rival cannot win
 * against the own offer at any price (an in-stock own offer with a premium of 100 %). The one
 * formula both the strategies and the replay of an explanation use.
 */
export const stepLimit = (
  rule: StepRule,
  rival: { readonly cents: bigint; readonly stock_status: StockStatus | null },
  premiumPercent: number | null,
  stepCents: bigint,
): bigint | undefined => {
  if (rule === 'match') return floorToStep(rival.cents, stepCents);
  if (rule === 'undercut' || premiumPercent === null || rival.stock_status === null) return floorToStep(rival.cents - stepCents, stepCents);
  const premium = hundredthsOf(premiumPercent);
  // Takealot compares price * (100 - premium) for in-stock offers with price * 100 for leadtime
  // ones (tools/market/buy-box.ts), a tie going to the older listing: the own offer stays one step
  // under the tie, so it wins outright.
  if (rival.stock_status === 'lead_time') {
    if (premium >= WHOLE) return undefined;
    const tie = (rival.cents * WHOLE) / (WHOLE - premium);
    return floorToStep(tie - stepCents, stepCents);
  }
  const tie = (rival.cents * (WHOLE - premium)) / WHOLE;
  return floorToStep(tie - stepCents, stepCents);
};

/** A step of `rule` against `rival`, or none when the rule sets no limit. */
export const stepAgainst = (rule: StepRule, rival: Rival, premiumPercent: number | null, stepCents: bigint): StrategyStep[] => {
  const limitCents = stepLimit(rule, rival, premiumPercent, stepCents);
  return limitCents === undefined ? [] : [{ rule, rival, premiumPercent, limitCents }];
};
