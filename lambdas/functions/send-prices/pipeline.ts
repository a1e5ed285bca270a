import type { PriceChangeRef } from '../../data/price-changes/status.js';
import { DoubtReads } from './doubt.js';
import { guard, type CheckedPush } from './guard.js';
import { readGate, type OpenGate } from './gate.js';
import { plan } from './plan.js';
import { push, type PushDeps } from './push.js';
import { SellerApiReads } from './seller-api.js';
import { settle, settleEndings } from './settle.js';

/**
 * The price sender's run over some of a connection's price changes (docs/price-sending.md), in
 * four steps:
 *  1. plan (plan.ts): which changes go now, and at what price (the target, or a capped step
 *     toward it); the others end (`failed`, `suggested`, `superseded`, `applied`) or wait;
 *  2. guard (guard.ts): every safety check, just before the push: the connection read afresh,
 *     each price against its bounds as they are now (a `CheckedPrice`), the circuit breaker,
 *     the daily cap;
 *  3. push (push.ts): the batch request through the marketplace port, carrying checked prices
 *     only; each later attempt goes back through the guard;
 *  4. settle (settle.ts): what each change became, recorded; what the marketplace has not
 *     confirmed yet is confirmed later (confirm.ts, from the sweep and the batch events).
 * Runs again harmlessly: every move is conditional on the status it leaves.
 */
export const sendChanges = async (clientId: string, connector: string, refs: readonly PriceChangeRef[], deps: PushDeps): Promise<void> => {
  const gate = await readGate(clientId, connector, deps.now());
  const reads = gate.kind === 'open' ? new SellerApiReads(clientId, connector, gate.port, gate.apiKey, deps) : undefined;

  const planned = await plan(clientId, connector, gate, refs, reads && new DoubtReads(clientId, connector, reads), deps);
  await settleEndings(clientId, planned.endings, new Date(deps.now()).toISOString());
  if (!reads || planned.pushes.length === 0) return;

  const guarded = await guard(clientId, connector, planned.pushes, deps.now());
  if (!guarded) return;

  const pushAndSettle = async (batch: readonly CheckedPush[], fresh: OpenGate | undefined): Promise<void> => {
    const pushed = await push(clientId, connector, batch, guarded.day, fresh, deps);
    if (pushed) await settle(clientId, guarded.gate, reads, pushed, (part) => pushAndSettle(part, undefined), deps);
  };
  // As many prices a push as the marketplace's adapter takes in one batch request (marketplaces.ts).
  const { maxBatchUpdates } = guarded.gate.marketplace;
  for (let i = 0; i < guarded.pushes.length; i += maxBatchUpdates) {
    // Only the first batch goes right behind the guard's look; a later one is checked again before it goes.
    await pushAndSettle(guarded.pushes.slice(i, i + maxBatchUpdates), i === 0 ? guarded.gate : undefined);
  }
};
