import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { pauseConnection } from '../../data/connections/connections.js';
import { transitionPriceChange } from '../../data/price-changes/status.js';
import { countPush, enabledRepricerCount, noteSharpDrop } from '../../data/price-changes/sending.js';
import { dropExplained } from '../../domain/breaker-evidence.js';
import { breakerTrips, breakerWindowsNoted, isSharpDrop } from '../../domain/price-push.js';
import { logger } from '../../observability/logger.js';
import { loopMetrics } from '../../observability/loop-metrics.js';
import type { Gate } from './gate.js';
import type { Plan } from './plan.js';

/**
 * What stands between planned pushes and the marketplace (docs/price-sending.md, "Safety"): one
 * price per offer per batch (the latest decision), the circuit breaker over the connection's
 * sharp drops, and each offer's daily cap.
 */
export type Push = Extract<Plan, { kind: 'push' }>;
export type OpenGate = Extract<Gate, { kind: 'open' }>;

const iso = (ms: number) => new Date(ms).toISOString();

/** The latest decision per offer goes; an older one in the same run is superseded (one price per offer per batch). */
export const latestPerOffer = async (clientId: string, pushes: readonly Push[], now: string): Promise<Push[]> => {
  const latest = new Map<string, Push>();
  for (const push of pushes) {
    const offerId = push.change.stored.record.offer_id;
    const held = latest.get(offerId);
    if (!held || held.change.stored.record.id < push.change.stored.record.id) latest.set(offerId, push);
  }
  const kept = new Set(latest.values());
  await mapLimit(
    pushes.filter((p) => !kept.has(p)),
    (push) =>
      transitionPriceChange(clientId, push.change.ref, {
        from: ['pending'],
        to: 'superseded',
        fields: { status_reason: 'A later decision for this offer took its place.' },
        now,
      }),
    PRICE_SENDING.parallelCalls,
  );
  return [...kept];
};

/** The breaker: trips (pausing the connection) when too many repriced offers would drop sharply in one window. */
export const breakerTripped = async (clientId: string, gate: OpenGate, pushes: readonly Push[], nowMs: number): Promise<boolean> => {
  const { safety, connector } = gate.stored.record;
  // Decisions made before the client last resumed the connection were accepted by it: not counted again.
  const cleared = gate.stored.breakerClearedAt;
  // A drop that follows rivals priced like the market is the market; one toward a rival far under the rest is not (a glitch).
  const sharp = pushes.filter(
    (push) =>
      isSharpDrop(push.current, push.price, safety.breaker_drop_percent) &&
      !dropExplained({ rivalPrices: push.rivalPrices, currentPrice: push.current }, safety.breaker_outlier_percent) &&
      (cleared === undefined || push.change.stored.record.created_at > cleared),
  );
  if (sharp.length === 0) return false;
  const { counted, carried } = breakerWindowsNoted(nowMs, safety.breaker_window_minutes);
  // Each note answers with the window's distinct offers so far: the largest answer counts them all.
  const counts = await mapLimit(
    sharp,
    async (push) => {
      const offerId = push.change.stored.record.offer_id;
      const [count] = await Promise.all([
        noteSharpDrop(clientId, connector, counted, offerId, nowMs),
        noteSharpDrop(clientId, connector, carried, offerId, nowMs),
      ]);
      return count;
    },
    PRICE_SENDING.parallelCalls,
  );
  const drops = Math.max(...counts);
  const repriced = await enabledRepricerCount(clientId);
  if (!breakerTrips(drops, repriced, safety.breaker_share_percent)) return false;
  const reason =
    `Paused by the circuit breaker: ${drops} of ${repriced} repriced offers would drop by more than ` +
    `${safety.breaker_drop_percent} % within ${safety.breaker_window_minutes} minutes, toward rivals priced far under the rest of their market ` +
    `(more than ${safety.breaker_outlier_percent} % under the next rival). Nothing is sent until the connection is resumed.`;
  await pauseConnection(clientId, gate.stored.record, reason);
  logger.warn('Circuit breaker tripped', { connector, drops, repriced });
  loopMetrics.breakerTripped(connector);
  return true;
};

/**
 * Each offer's daily cap: a push over it is `failed`, the others go on. Counted when the push
 * is about to go, and given back once the marketplace is known not to have taken it (a 429, a
 * refused key or price, a 404, the kill switch closing in between, a doubt told "not there"):
 * so it counts the pushes the marketplace took or may have taken, never one it refused.
 *
 * Counting only once a push is known to be accepted could overshoot the cap: a push's
 * acceptance is learned seconds to hours after it went (a batch's status, a push in doubt), and
 * every push in flight meanwhile would pass a check that does not see it, retries included.
 * Counting first, with a conditional increment, never lets more than the cap be in flight or
 * taken on one day; a give-back only follows a push the marketplace answered it did not take,
 * or a doubt whose offer did not show the price after the doubt wait (doubt.ts).
 */
export const withinDailyCap = async (clientId: string, gate: OpenGate, pushes: readonly Push[], day: string, nowMs: number): Promise<Push[]> => {
  const cap = gate.stored.record.safety.max_changes_per_day;
  const within = await mapLimit(
    pushes,
    async (push) => {
      const { record } = push.change.stored;
      if (await countPush(clientId, record.product_code, record.offer_id, day, cap, nowMs)) return true;
      await transitionPriceChange(clientId, push.change.ref, {
        from: ['pending'],
        to: 'failed',
        fields: { status_reason: `Not sent: this offer's price was already pushed ${cap} times today (UTC), the connection's daily cap.` },
        now: iso(nowMs),
      });
      return false;
    },
    PRICE_SENDING.parallelCalls,
  );
  return pushes.filter((_push, index) => within[index]);
};
