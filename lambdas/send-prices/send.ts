import { PRICE_SENDING } from '../config/price-sending.js';
import { mapLimit } from '../data/table/concurrency.js';
import { readSendable, transitionPriceChange, type PriceChangeRef, type StoredSendable } from '../data/price-changes/status.js';
import { forgetDecision } from '../data/repricers/product-partition.js';
import { logger } from '../observability/logger.js';
import { DoubtReads, resolveDoubt } from './doubt.js';
import { readGate } from './gate.js';
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
      if (plan.kind === 'doubt') {
        const cleared = doubts ? await resolveDoubt(clientId, change, doubts, deps) : undefined;
        plan = cleared ? await planChange(clientId, cleared, gate, deps.now(), products) : { kind: 'wait', change };
      }
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
