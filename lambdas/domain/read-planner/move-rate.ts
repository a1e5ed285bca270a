import type { ReadPlannerSettings } from '../../config/read-planner.js';

/**
 * A moving estimate of how often a page's market moves: the looks that saw a move and the time
 * they covered, both halved every half-life, so what the market did lately counts most. A look
 * sees at most one move however many happened since the look before: fast markets are
 * underestimated, which only keeps their looks at the floor.
 */
export interface MoveEstimate {
  readonly moves: number;
  readonly observedMs: number;
}

export const initialMoves: MoveEstimate = { moves: 0, observedMs: 0 };

export const moveObserved = (estimate: MoveEstimate, gapMs: number, moved: boolean, settings: ReadPlannerSettings): MoveEstimate => {
  const gap = Math.max(0, gapMs);
  const decay = 0.5 ** (gap / (settings.moveHalfLifeSeconds * 1000));
  return { moves: estimate.moves * decay + (moved ? 1 : 0), observedMs: estimate.observedMs * decay + gap };
};

/** How much the prior counts, in moves: little, so a few looks outweigh it. */
const PRIOR_MOVES = 0.25;

/** The expected time between moves, with a prior of one move per `priorMoveSeconds`. */
export const expectedMoveMs = (estimate: MoveEstimate, settings: ReadPlannerSettings): number =>
  (estimate.observedMs + PRIOR_MOVES * settings.priorMoveSeconds * 1000) / (estimate.moves + PRIOR_MOVES);
