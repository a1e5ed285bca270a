import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { pauseConnection } from '../../data/connections/connections.js';
import { transitionPriceChange } from '../../data/price-changes/status.js';
import { readSendBounds, type ProductBounds } from '../../data/price-changes/send-bounds.js';
import { countPush, enabledRepricerCount, noteSharpDrop } from '../../data/price-changes/sending.js';
import { dropExplained } from '../../domain/breaker-evidence.js';
import { breakerTrips, breakerWindowsNoted, checkSendable, intoBounds, isSharpDrop, utcDay } from '../../domain/price-push.js';
import { logger } from '../../observability/logger.js';
import { loopMetrics } from '../../observability/loop-metrics.js';
import { mayPush, readGate, type Gate, type OpenGate } from './gate.js';
import type { Planned } from './plan-change.js';

/**
 * The pipeline's second step: every safety check between a planned price and the marketplace
 * (docs/price-sending.md, "Safety"), run just before the push:
 *  - the connection may send now (the gate, gate.ts, read afresh: the kill switch, a pause, the
 *    seller-API hold, the operator's stop), and in suggest mode only what the client applied goes;
 *  - each price against its bounds as they are now (`checkPrice`, the one check of the floor,
 *    the ceiling, the rrp and the grid): the price becomes a `CheckedPrice`, the only price the
 *    push step sends; a target outside is `failed`;
 *  - the circuit breaker over the connection's sharp drops, then each offer's daily cap.
 * A later attempt of the same push (a retry after a 429 or a 5xx, a part of a batch refused
 * whole) is checked again (`recheck`): the later bound wins, and a floor raised a minute before
 * an attempt is never pushed under.
 */

const iso = (ms: number) => new Date(ms).toISOString();

declare const checkedAgainstBounds: unique symbol;
/** A price checked against its bounds by this guard; nothing else makes one (the push step takes no other). */
export type CheckedPrice = number & { readonly [checkedAgainstBounds]: true };
/** A planned push whose price the guard checked. */
export type CheckedPush = Omit<Planned, 'price'> & { readonly price: CheckedPrice };

/** Where a price outside its bounds goes: `failed` when its target is outside; `pending` (planned again) when only a capped step is. */
export type Refused = { readonly to: 'failed'; readonly reason: string } | { readonly to: 'pending' };
export type Screened<P> = Refused & { readonly push: P };

const REPRICER_GONE = 'The repricer was deleted before this price was sent.';

/**
 * The one check of a price against its bounds as read now: the target decided must be inside
 * (else `failed`), and the price carried (the target, or a capped step toward it) is brought
 * inside them: the bounds win over the step cap. `pushed`: the price already carries a push
 * token (a later attempt), so it may not change: a step the bounds no longer hold is planned again.
 */
export const checkPrice = (
  push: { readonly price: number; readonly change: Planned['change'] },
  found: ProductBounds | undefined,
  pushed = false,
): CheckedPrice | Refused => {
  const { record } = push.change.stored;
  if (!found || found.repricerId !== record.repricer_id) return { to: 'failed', reason: REPRICER_GONE };
  const target = checkSendable(record.new_price, found.bounds);
  if (!target.ok) return { to: 'failed', reason: `Not sent: ${target.reason}.` };
  const price = intoBounds(push.price, found.bounds);
  if ((pushed && price !== push.price) || !checkSendable(price, found.bounds).ok) return { to: 'pending' };
  return price as CheckedPrice;
};

const isChecked = (verdict: CheckedPrice | Refused): verdict is CheckedPrice => typeof verdict === 'number';

/** The pushes sorted by their bounds read now: those inside (checked), and those left out. */
const screen = async <P extends { readonly price: number; readonly change: Planned['change'] }>(
  clientId: string,
  connector: string,
  pushes: readonly P[],
  pushed: boolean,
): Promise<{ inside: (P & { readonly price: CheckedPrice })[]; outside: Screened<P>[] }> => {
  const fresh = await readSendBounds(
    clientId,
    connector,
    pushes.map((push) => push.change.stored.record.product_code),
  );
  const inside: (P & { readonly price: CheckedPrice })[] = [];
  const outside: Screened<P>[] = [];
  for (const push of pushes) {
    const verdict = checkPrice(push, fresh.get(push.change.stored.record.product_code), pushed);
    if (isChecked(verdict)) inside.push({ ...push, price: verdict });
    else outside.push({ ...verdict, push });
  }
  return { inside, outside };
};

/** What the guard lets through: the connection as read now, and the pushes that may go, counted on `day`. */
export interface Guarded {
  readonly gate: OpenGate;
  readonly pushes: CheckedPush[];
  readonly day: string;
}

/** Whether every push may go through this gate now (a live connection, or what the client applied). */
const openFor = (gate: Gate, pushes: readonly { readonly change: Planned['change'] }[]): gate is OpenGate =>
  gate.kind === 'open' && pushes.every((push) => mayPush(gate, push.change.requested === true));

export const guard = async (clientId: string, connector: string, planned: readonly Planned[], nowMs: number): Promise<Guarded | undefined> => {
  // Closed since the run began: nothing goes, and the changes stay pending for the next run to plan.
  const gate = await readGate(clientId, connector, nowMs);
  if (!openFor(gate, planned)) {
    loopMetrics.pushOutcome(connector, 'held', 'gate_closed');
    return undefined;
  }
  const { inside, outside } = await screen(clientId, connector, planned, false);
  // No push token yet: a price refused here has not been pushed or counted.
  await mapLimit(
    outside,
    async (screened) => {
      if (screened.to !== 'failed') return;
      await transitionPriceChange(clientId, screened.push.change.ref, {
        from: ['pending'],
        to: 'failed',
        fields: { status_reason: screened.reason },
        now: iso(nowMs),
      });
    },
    PRICE_SENDING.parallelCalls,
  );
  if (inside.length === 0) {
    loopMetrics.pushOutcome(connector, 'held', 'out_of_bounds');
    return undefined;
  }
  if (await breakerTripped(clientId, gate, inside, nowMs)) return undefined;
  const day = utcDay(nowMs);
  return { gate, pushes: await withinDailyCap(clientId, gate, inside, day, nowMs), day };
};

/** A later attempt of a push: the connection and the bounds read again; `closed` when the connection may not send now. */
export const recheck = async <P extends CheckedPush>(
  clientId: string,
  connector: string,
  pushes: readonly P[],
  nowMs: number,
): Promise<{ readonly gate: Gate; readonly inside?: never } | { readonly gate: OpenGate; readonly inside: P[]; readonly outside: Screened<P>[] }> => {
  const gate = await readGate(clientId, connector, nowMs);
  if (!openFor(gate, pushes)) return { gate };
  const { inside, outside } = await screen(clientId, connector, pushes, true);
  return { gate, inside: inside as P[], outside };
};

/** The breaker: trips (pausing the connection) when too many repriced offers would drop sharply in one window. */
const breakerTripped = async (clientId: string, gate: OpenGate, pushes: readonly CheckedPush[], nowMs: number): Promise<boolean> => {
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
const withinDailyCap = async (clientId: string, gate: OpenGate, pushes: readonly CheckedPush[], day: string, nowMs: number): Promise<CheckedPush[]> => {
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
