import type { Repricer } from './records.js';
import { planTarget, type EngineContext, type EngineOffer, type EngineRepricer } from './repricing.js';
import type { TargetExplanation } from './explanation.js';

/**
 * The explanation of a repricer's target (docs/repricing.md, "Explanation"): the engine's own
 * plan (repricing.ts `planTarget`), not a second derivation of it, so it cannot tell a different
 * story from the decision. The schema lives in explanation.ts.
 */
export { appliedBound, EXCLUSIONS, targetExplanation, type ExcludedCompetitor, type ExplainedCompetitor, type TargetExplanation } from './explanation.js';

export const explainTarget = (
  repricer: EngineRepricer & Pick<Repricer, 'buybox_approach' | 'repricer_approach'>,
  offers: readonly EngineOffer[],
  priceStep: number,
  context: EngineContext = {},
): TargetExplanation => planTarget(repricer, offers, priceStep, context).explanation;
