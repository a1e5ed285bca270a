import { mapLimit } from '../shared/data/concurrency.js';
import { readSendable, transitionPriceChange, type PriceChangeRef, type StoredSendable } from '../shared/data/price-change-status.js';
import { logger } from '../shared/logger.js';
import { withMarketplaceRetries } from '../shared/marketplace/retrying.js';
import { settleSent } from './confirm.js';
import { readGate, type Gate } from './gate.js';
import { planChange, ProductReads, type Plan } from './plan.js';
import { pushAll, type PushDeps } from './push.js';

/**
 * One run over some of a connection's price changes: each read as it is, planned against the
 * connection, repricer and offer as they are (plan.ts), moved where it ends without a push,
 * and the rest pushed (push.ts). Runs again harmlessly: every move is conditional on the
 * status it leaves.
 */
const PARALLEL_READS = 8;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A push that started but left no outcome (the sender stopped in between): if the offer now
 * has that price, the push landed and counts as sent and confirmed; if not, the token is
 * cleared and the change planned again. Undefined: it could not be told now (the marketplace
 * unreachable), so it waits.
 */
const resolveDoubt = async (clientId: string, change: StoredSendable, gate: Gate, deps: PushDeps): Promise<StoredSendable | undefined> => {
  if (gate.kind !== 'open' || change.pushToken === undefined) return undefined;
  const { record } = change.stored;
  let price: number | undefined;
  try {
    price = (await withMarketplaceRetries(() => gate.port.readOwnOffer(gate.apiKey, record.offer_id), deps.retry))?.sellingPrice;
  } catch {
    return undefined;
  }
  const now = iso(deps.now());
  if (price !== undefined && price === change.pushPrice) {
    const sent = await transitionPriceChange(clientId, change.ref, {
      from: ['pending'],
      to: 'sent',
      token: change.pushToken,
      fields: { sent_price: price, sent_at: change.pushStartedAt ?? now },
      sender: { pushToken: null, pushStartedAt: null, pushPrice: null },
      now,
    });
    if (sent) await settleSent(clientId, { ref: change.ref, record: sent }, { ok: true }, now);
    return undefined;
  }
  await transitionPriceChange(clientId, change.ref, {
    from: ['pending'],
    token: change.pushToken,
    sender: { pushToken: null, pushStartedAt: null, pushPrice: null },
    now,
  });
  return readSendable(clientId, change.ref);
};

export const sendChanges = async (clientId: string, connector: string, refs: readonly PriceChangeRef[], deps: PushDeps): Promise<void> => {
  const gate = await readGate(clientId, connector, deps.now());
  const found = (await mapLimit([...refs], (ref) => readSendable(clientId, ref), PARALLEL_READS)).filter(
    (change): change is StoredSendable => change !== undefined && change.stored.record.connector === connector,
  );
  const products = new ProductReads(clientId);
  const plans: Plan[] = [];
  for (const change of found) {
    let plan = await planChange(clientId, change, gate, deps.now(), products);
    if (plan.kind === 'doubt') {
      const cleared = await resolveDoubt(clientId, change, gate, deps);
      plan = cleared ? await planChange(clientId, cleared, gate, deps.now(), products) : { kind: 'wait', change };
    }
    plans.push(plan);
    logger.debug('Price change planned', {
      id: change.stored.record.id,
      plan: plan.kind,
      ...(plan.kind === 'move' ? { to: plan.to } : {}),
      ...(plan.kind === 'push' ? { price: plan.price } : {}),
      gate: gate.kind,
    });
  }
  const now = iso(deps.now());
  for (const plan of plans) {
    if (plan.kind !== 'move') continue;
    await transitionPriceChange(clientId, plan.change.ref, {
      from: ['pending'],
      to: plan.to,
      fields: { status_reason: plan.reason, ...(plan.to === 'applied' ? { applied_at: now } : {}) },
      now,
    });
  }
  const pushes = plans.filter((plan): plan is Extract<Plan, { kind: 'push' }> => plan.kind === 'push');
  if (pushes.length > 0 && gate.kind === 'open') await pushAll(clientId, gate, pushes, deps);
};
