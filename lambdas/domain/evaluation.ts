import type { ConnectionMode } from './connections.js';
import type { TargetExplanation } from './explanation.js';
import { guardRepricer, type WarHold, type WarState } from './price-war.js';
import { decideExplained, type Decision, type EngineContext, type EngineOffer } from './repricing.js';

/**
 * What one repricer's evaluation records (docs/repricing.md): the decisions of the engine for
 * its product's offers, each with the status its connection gives it, less what the price-war
 * guard holds, and the guard's states that changed. Pure: the evaluator
 * (lambdas/functions/evaluate-repricers/evaluate.ts) reads the product and the connection,
 * plans with this, and has the data layer record the plan.
 */
export interface PlannedDecision extends Decision {
  readonly repricerId: number;
  readonly connector: string;
  /** `pending` when its connection is live (the sender takes it), else `suggested` (the client applies it). */
  readonly status: 'pending' | 'suggested';
  /** The engine's explanation of the target, stored with the price change. */
  readonly explanation: TargetExplanation;
}

export interface PlannedWarState {
  readonly repricerId: number;
  readonly offerId: string;
  readonly connector: string;
  readonly state: WarState;
}

export interface RepricerPlan {
  readonly decisions: readonly PlannedDecision[];
  readonly warStates: readonly PlannedWarState[];
  /** The offers the guard holds now (for the log). */
  readonly holds: readonly { readonly offerId: string; readonly hold: WarHold; readonly detected: boolean }[];
}

export const planRepricerDecisions = (input: {
  readonly slot: Parameters<typeof guardRepricer>[0] & { readonly repricerId: number };
  readonly offers: readonly EngineOffer[];
  readonly priceStep: number;
  /** The connection's mode on the slot's connector; undefined: no connection (the client's imports are the market). */
  readonly mode: ConnectionMode | undefined;
  /** The last decision recorded for the repricer and an offer: its price (absent once forgotten) and how it was recorded. */
  readonly lastDecision: (
    offerId: string,
  ) => { readonly lastPrice?: number | undefined; readonly lastStatus?: 'pending' | 'suggested' | undefined } | undefined;
  readonly warState: (offerId: string) => WarState | undefined;
  readonly context: EngineContext;
  readonly nowMs: number;
}): RepricerPlan => {
  const { slot, offers } = input;
  // Live: the sender takes it; suggest (or no connection): it waits for the client's apply.
  const status = input.mode === 'live' ? 'pending' : 'suggested';
  // The last decided price is not decided again, unless it was only a suggestion and the
  // connection now sends (a kill switch turned it back, or the client never applied it).
  const lastDecided = (offerId: string) => {
    const last = input.lastDecision(offerId);
    return status === 'pending' && last?.lastStatus === 'suggested' ? undefined : last?.lastPrice;
  };
  // The decisions and their explanation come from one plan of the engine.
  const { decisions: decided, explanation } = decideExplained(slot, offers, input.priceStep, lastDecided, input.context);
  // The price-war guard, when set, holds an offer in a war: its decision is not made (domain/price-war.ts).
  const guarded = guardRepricer(slot, offers, decided, input.warState, input.nowMs);
  return {
    decisions: explanation
      ? guarded.decisions.map((decision) => ({ ...decision, repricerId: slot.repricerId, connector: slot.connector, status, explanation }))
      : [],
    warStates: guarded.changed.map(({ offerId, state }) => ({ repricerId: slot.repricerId, offerId, connector: slot.connector, state })),
    holds: guarded.holds,
  };
};
