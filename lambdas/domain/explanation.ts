import * as z from 'zod';
import { BUYBOX_APPROACHES, PRICE_CHANGE_REASON_VALUES, REPRICER_APPROACHES } from './approaches.js';
import { COMPETITOR_FILTER_NAMES } from './competitor-filter-names.js';
import { centsToNumber, toCents } from './money.js';
import { STEP_RULES, stepLimit } from './strategies/strategy.js';

/**
 * Why the engine wants the price it wants (docs/repricing.md, "Explanation"): the competitors
 * it compared with and those it left out (and why), the approach's own steps, the raw target,
 * each bound in the order the engine applies it, and the result. The preview shows it and every
 * price change stores it; both come from the engine's one plan (repricing.ts `planTarget`), the
 * plan the decision is made from.
 *
 * Bounded in size (it is written with every price change): at most MAX_LISTED competitors of
 * each list, the cheapest, with the full counts beside them.
 */
export const MAX_LISTED_COMPETITORS = 10;

const explainedCompetitor = z.strictObject({ offer_id: z.string(), seller_id: z.string().nullable(), price: z.number() });
export type ExplainedCompetitor = z.infer<typeof explainedCompetitor>;
export const EXCLUSIONS = ['other_connector', 'not_buyable', ...COMPETITOR_FILTER_NAMES] as const;
const excludedCompetitor = z.strictObject({ ...explainedCompetitor.shape, by: z.enum(EXCLUSIONS) });
export type ExcludedCompetitor = z.infer<typeof excludedCompetitor>;

export const appliedBound = z.strictObject({
  /** `rrp`: the marketplace's rrp for the product, a second ceiling (listed only where the product has one). */
  bound: z.enum(['floor', 'ceiling', 'rrp']),
  /** The bound on the step grid: the floor rounded up, the ceiling and the rrp down. */
  value: z.number(),
  /** Whether this bound set the final price. */
  applied: z.boolean(),
});

const stockStatus = z.enum(['in_stock', 'lead_time']).nullable();

export const explainedStep = z.strictObject({
  rule: z.enum(STEP_RULES),
  offer_id: z.string(),
  seller_id: z.string().nullable(),
  price: z.number(),
  stock_status: stockStatus,
  /** The in-stock premium the rule counted on, in percent; null for the other rules. */
  premium_percent: z.number().nullable(),
  /** The highest grid price the rule allows against this rival. */
  limit: z.number(),
});
export type ExplainedStep = z.infer<typeof explainedStep>;

export const targetExplanation = z.strictObject({
  approach: z.strictObject({ buybox_approach: z.enum(BUYBOX_APPROACHES), repricer_approach: z.enum(REPRICER_APPROACHES) }),
  /** The cheapest MAX_LISTED_COMPETITORS of each list, by price then offer id. */
  competitors: z.strictObject({ considered: z.array(explainedCompetitor), excluded: z.array(excludedCompetitor) }),
  /** How many there are in all, listed or not. */
  competitor_counts: z.strictObject({ considered: z.int().min(0), excluded: z.int().min(0) }),
  /** The own offer's stock mode as the approach saw it; null when unknown. */
  own_stock_status: stockStatus,
  /** The product's in-stock premium interval `buybox` counted with; null for the other approaches. */
  in_stock_premium: z.strictObject({ low_percent: z.number(), high_percent: z.number(), observations: z.int().min(0) }).nullable(),
  /** The connector's price step: the grid every price lies on. */
  price_step: z.number(),
  /** The approach's steps; the raw target is their lowest limit. */
  steps: z.array(explainedStep),
  /** The lowest step limit; null when there is no step (alone). */
  raw_target: z.number().nullable(),
  bounds: z.array(appliedBound),
  /** Null (as the reason) when no grid price lies between floor and ceiling: the engine decides nothing. */
  final_price: z.number().nullable(),
  reason: z.enum(PRICE_CHANGE_REASON_VALUES).nullable(),
});
export type TargetExplanation = z.infer<typeof targetExplanation>;

/**
 * The final price an explanation's own figures lead to, worked out again from them alone: each
 * step's limit from its rule, rival and premium on the price step's grid, the lowest of them
 * (alone: the ceiling), then the floor, the ceiling and the rrp. Null when no grid price lies between
 * them. What a reader can check by hand, and what the tests check against `final_price`.
 */
export const replayExplanation = (explanation: TargetExplanation): { readonly raw: number | null; readonly final: number | null } => {
  const step = toCents(explanation.price_step);
  const limits = explanation.steps.map((s) => {
    const limit = stepLimit(s.rule, { cents: toCents(s.price), stock_status: s.stock_status }, s.premium_percent, step);
    if (limit === undefined) throw new RangeError(`A step against ${s.offer_id} sets no limit`);
    return limit;
  });
  const raw = limits.length === 0 ? null : limits.reduce((low, limit) => (limit < low ? limit : low));
  const floor = explanation.bounds.find((b) => b.bound === 'floor');
  const ceiling = explanation.bounds.find((b) => b.bound === 'ceiling');
  const rrp = explanation.bounds.find((b) => b.bound === 'rrp');
  if (!floor || !ceiling) throw new RangeError('An explanation names both bounds');
  const low = toCents(floor.value);
  const high = rrp && toCents(rrp.value) < toCents(ceiling.value) ? toCents(rrp.value) : toCents(ceiling.value);
  const rawNumber = raw === null ? null : centsToNumber(raw);
  if (low > high) return { raw: rawNumber, final: null };
  const final = raw === null ? high : raw < low ? low : raw > high ? high : raw;
  return { raw: rawNumber, final: centsToNumber(final) };
};
