import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { readSendable, type PriceChangeRef, type StoredSendable } from '../../data/price-changes/status.js';
import { logger } from '../../observability/logger.js';
import { tellDoubt, type DoubtReads } from './doubt.js';
import type { Gate } from './gate.js';
import { planChange, ProductReads, type Ending, type Plan, type Planned } from './plan-change.js';
import type { PushDeps } from './push.js';

/**
 * The pipeline's first step: which of the changes named go now. Each is read as it is and
 * planned against the connection, repricer and offer as they are (plan-change.ts), a push in
 * doubt told first (doubt.ts); in one run, one price per offer (the latest decision) goes.
 * Nothing is written here: the changes that end without a push are recorded by the settle step.
 */

export interface RunPlan {
  /** What goes now, one per offer: its price planned, not yet checked against its bounds. */
  readonly pushes: Planned[];
  /** What ends without a push (`failed`, `suggested`, `superseded`, `applied`). */
  readonly endings: Ending[];
}

const SUPERSEDED = 'A later decision for this offer took its place.';

/** The latest decision per offer goes; an older one in the same run is superseded (one price per offer per batch). */
const latestPerOffer = (pushes: readonly Planned[]): { latest: Planned[]; older: Ending[] } => {
  const latest = new Map<string, Planned>();
  for (const push of pushes) {
    const offerId = push.change.stored.record.offer_id;
    const held = latest.get(offerId);
    if (!held || held.change.stored.record.id < push.change.stored.record.id) latest.set(offerId, push);
  }
  const kept = new Set(latest.values());
  const older = pushes
    .filter((push) => !kept.has(push))
    .map((push): Ending => ({ kind: 'move', change: push.change, to: 'superseded', reason: SUPERSEDED, forget: false }));
  return { latest: [...kept], older };
};

export const plan = async (
  clientId: string,
  connector: string,
  gate: Gate,
  refs: readonly PriceChangeRef[],
  doubts: DoubtReads | undefined,
  deps: PushDeps,
): Promise<RunPlan> => {
  const found = (await mapLimit([...refs], (ref) => readSendable(clientId, ref), PRICE_SENDING.parallelCalls)).filter(
    (change): change is StoredSendable => change !== undefined && change.stored.record.connector === connector,
  );
  const products = new ProductReads(clientId);
  const plans = await mapLimit(
    found,
    async (change): Promise<Plan> => {
      let planned = await planChange(clientId, change, gate, deps.now(), products);
      if (planned.kind === 'doubt') planned = await tellDoubt(clientId, change, gate, doubts, products, deps);
      logger.debug('Price change planned', {
        id: change.stored.record.id,
        plan: planned.kind,
        ...(planned.kind === 'move' ? { to: planned.to } : {}),
        ...(planned.kind === 'push' ? { price: planned.price } : {}),
        gate: gate.kind,
      });
      return planned;
    },
    PRICE_SENDING.parallelCalls,
  );
  const { latest, older } = latestPerOffer(plans.filter((p): p is Planned => p.kind === 'push'));
  return { pushes: latest, endings: [...plans.filter((p): p is Ending => p.kind === 'move'), ...older] };
};
