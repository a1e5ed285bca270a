import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { readSendable, transitionPriceChange, type PriceChangeRef, type StoredSendable } from '../../data/price-changes/status.js';
import { forgetDecision } from '../../data/repricing/decision-states.js';
import { logger } from '../../observability/logger.js';
import { DoubtReads, notLanded, resolveDoubt } from './doubt.js';
import { readGate, type Gate } from './gate.js';
import { planChange, ProductReads, type Plan } from './plan.js';
import { pushAll } from './push.js';
import type { PushDeps } from './push-deps.js';
import { SellerApiReads } from './seller-api.js';

/**
 * One run over some of a connection's price changes: each read as it is, planned against the
 * connection, repricer and offer as they are (plan.ts), a push in doubt told first (doubt.ts),
 * moved where it ends without a push, and the rest pushed (push.ts). Runs again harmlessly:
 * every move is conditional on the status it leaves.
 */
const iso = (ms: number) => new Date(ms).toISOString();

/** Ends a change without a push; one that ended for a reason of the connection is forgotten by the evaluator, to be decided again. */
const endWithoutPush = async (clientId: string, plan: Extract<Plan, { kind: 'move' }>, now: string): Promise<void> => {
  const moved = await transitionPriceChange(clientId, plan.change.ref, {
    from: ['pending'],
    to: plan.to,
    fields: { status_reason: plan.reason, ...(plan.to === 'applied' ? { applied_at: now } : {}) },
    now,
  });
  if (moved && plan.forget) await forgetDecision(clientId, moved, plan.change.ref.sk);
};

const withoutDoubt = (change: StoredSendable): StoredSendable => ({
  ...change,
  pushToken: undefined,
  pushStartedAt: undefined,
  pushPrice: undefined,
  retryAt: undefined,
});

/**
 * A push in doubt, told (doubt.ts) before anything else goes for the offer. When the offer does
 * not show its price: the same price goes again at once (pushing an absolute price twice lands
 * it once, wherever the first push is); a different one only once the doubt wait has passed
 * since the push, time for a batch the marketplace took to show, so an older price never lands
 * after a newer one.
 */
const tellDoubt = async (
  clientId: string,
  change: StoredSendable,
  gate: Gate,
  doubts: DoubtReads | undefined,
  products: ProductReads,
  deps: PushDeps,
): Promise<Plan> => {
  const wait: Plan = { kind: 'wait', change };
  if (!doubts || (await resolveDoubt(clientId, change, doubts, deps)) === 'told') return wait;
  const nowMs = deps.now();
  if (nowMs - Date.parse(change.pushStartedAt ?? '') < PRICE_SENDING.pushInDoubtMs) {
    const again = await planChange(clientId, withoutDoubt(change), gate, nowMs, products);
    if (again.kind !== 'push' || again.price !== change.pushPrice) return wait;
  }
  const cleared = await notLanded(clientId, change, deps);
  return cleared ? planChange(clientId, cleared, gate, deps.now(), products) : wait;
};

export const sendChanges = async (clientId: string, connector: string, refs: readonly PriceChangeRef[], deps: PushDeps): Promise<void> => {
  const gate = await readGate(clientId, connector, deps.now());
  const reads = gate.kind === 'open' ? new SellerApiReads(clientId, connector, gate.port, gate.apiKey, deps) : undefined;
  const doubts = reads ? new DoubtReads(clientId, connector, reads) : undefined;
  const found = (await mapLimit([...refs], (ref) => readSendable(clientId, ref), PRICE_SENDING.parallelCalls)).filter(
    (change): change is StoredSendable => change !== undefined && change.stored.record.connector === connector,
  );
  const products = new ProductReads(clientId);
  const plans = await mapLimit(
    found,
    async (change): Promise<Plan> => {
      let plan = await planChange(clientId, change, gate, deps.now(), products);
      if (plan.kind === 'doubt') plan = await tellDoubt(clientId, change, gate, doubts, products, deps);
      logger.debug('Price change planned', {
        id: change.stored.record.id,
        plan: plan.kind,
        ...(plan.kind === 'move' ? { to: plan.to } : {}),
        ...(plan.kind === 'push' ? { price: plan.price } : {}),
        gate: gate.kind,
      });
      return plan;
    },
    PRICE_SENDING.parallelCalls,
  );
  const now = iso(deps.now());
  const moves = plans.filter((plan): plan is Extract<Plan, { kind: 'move' }> => plan.kind === 'move');
  await mapLimit(moves, (plan) => endWithoutPush(clientId, plan, now), PRICE_SENDING.parallelCalls);
  const pushes = plans.filter((plan): plan is Extract<Plan, { kind: 'push' }> => plan.kind === 'push');
  if (pushes.length > 0 && gate.kind === 'open' && reads) await pushAll(clientId, gate, pushes, reads, deps);
};
