import * as z from 'zod';
import { COMPETITOR_FILTER_NAMES } from './competitor-filters.js';
import { centsToNumber } from './money.js';
import { PRICE_CHANGE_REASON_VALUES, repricerRecord, type Repricer } from './records.js';
import {
  competitorExclusion,
  gridBounds,
  lowestOf,
  targetPrice,
  undercutCents,
  type CompetitorExclusion,
  type EngineOffer,
  type EngineRepricer,
} from './repricing.js';

/**
 * Why the engine wants the price it wants (docs/repricing.md, "Preview and explanation"): the
 * competitors it compared with and those it left out (and why), the undercut before any bound,
 * each bound in the order the engine applies it, and the result. Pure. The final price and
 * reason are the engine's own `targetPrice`, so the explanation cannot disagree with a decision;
 * it only adds the steps that led there, from the engine's own helpers.
 */
const explainedCompetitor = z.strictObject({ offer_id: z.string(), seller_id: z.string().nullable(), price: z.number() });
export type ExplainedCompetitor = z.infer<typeof explainedCompetitor>;
export const EXCLUSIONS = ['other_connector', 'not_buyable', ...COMPETITOR_FILTER_NAMES] as const satisfies readonly Exclude<CompetitorExclusion, 'own'>[];
const excludedCompetitor = z.strictObject({ ...explainedCompetitor.shape, by: z.enum(EXCLUSIONS) });
export type ExcludedCompetitor = z.infer<typeof excludedCompetitor>;

export const appliedBound = z.strictObject({
  bound: z.enum(['floor', 'ceiling']),
  /** The bound on the step grid: the floor rounded up, the ceiling down. */
  value: z.number(),
  /** Whether this bound set the final price. */
  applied: z.boolean(),
});

export const targetExplanation = z.strictObject({
  approach: z.strictObject({ buybox_approach: repricerRecord.shape.buybox_approach, repricer_approach: repricerRecord.shape.repricer_approach }),
  competitors: z.strictObject({ considered: z.array(explainedCompetitor), excluded: z.array(excludedCompetitor) }),
  /** One step under the lowest competitor, on the grid; null when there is no competitor. */
  raw_target: z.number().nullable(),
  bounds: z.array(appliedBound),
  /** Null (as the reason) when no grid price lies between floor and ceiling: the engine decides nothing. */
  final_price: z.number().nullable(),
  reason: z.enum(PRICE_CHANGE_REASON_VALUES).nullable(),
});
export type TargetExplanation = z.infer<typeof targetExplanation>;

const described = (offer: EngineOffer): ExplainedCompetitor => ({ offer_id: offer.offer_id, seller_id: offer.seller_id ?? null, price: offer.offer_price });

/** By price, then offer id: the order the engine picks the lowest in. */
const byPrice = (a: ExplainedCompetitor, b: ExplainedCompetitor) => a.price - b.price || (a.offer_id < b.offer_id ? -1 : a.offer_id > b.offer_id ? 1 : 0);

export const explainTarget = (
  repricer: EngineRepricer & Pick<Repricer, 'buybox_approach' | 'repricer_approach'>,
  offers: readonly EngineOffer[],
  priceStep: number,
): TargetExplanation => {
  const considered: EngineOffer[] = [];
  const excluded: ExcludedCompetitor[] = [];
  for (const offer of offers) {
    const by = competitorExclusion(repricer, offer);
    // The client's own offers are what is repriced, not competitors: neither list names them.
    if (by === undefined) considered.push(offer);
    else if (by !== 'own') excluded.push({ ...described(offer), by });
  }
  const lowest = lowestOf(considered);
  const { floor, ceiling } = gridBounds(repricer, priceStep);
  const target = targetPrice(repricer, offers, priceStep);
  return {
    approach: { buybox_approach: repricer.buybox_approach, repricer_approach: repricer.repricer_approach },
    competitors: { considered: considered.map(described).sort(byPrice), excluded: excluded.sort(byPrice) },
    raw_target: lowest ? centsToNumber(undercutCents(lowest.offer_price, priceStep)) : null,
    // The engine holds the undercut to the floor first, then to the ceiling; alone, the ceiling is the price.
    bounds: [
      { bound: 'floor', value: centsToNumber(floor), applied: target?.reason === 'floor' },
      { bound: 'ceiling', value: centsToNumber(ceiling), applied: target?.reason === 'ceiling' || target?.reason === 'no_competition' },
    ],
    final_price: target?.price ?? null,
    reason: target?.reason ?? null,
  };
};
