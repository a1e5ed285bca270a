import { MARKET_TIMING } from '../../config/market-sync.js';
import { PRICE_SENDING } from '../../config/price-sending.js';
import type { StoredConnection } from '../../data/connections/connections.js';
import type { StoredSendable } from '../../data/price-changes/status.js';
import { latestOfferDecisions } from '../../data/price-changes/sending.js';
import { decisionId } from '../../data/repricing/decision-states.js';
import { engineContextOf, engineOffersOf, ownPriceNow, readProductForRepricing, type ProductForRepricing } from '../../data/repricing/inputs.js';
import { priceStepOf } from '../../data/connections/connectors.js';
import { type RepricerSlot } from '../../data/repricers/slots.js';
import { nextStep } from '../../domain/price-push.js';
import { competitorExclusion, targetPrice } from '../../domain/repricing.js';
import type { PriceChangeStatus } from '../../domain/records.js';
import { mayPush, type Gate } from './gate.js';

/**
 * What to do with one pending price change now, from the change, its connection, the repricer
 * and the offer as they are at send time (docs/design.md, "The marketplace loop"):
 *  - the connection deleted: `failed`; in suggest mode a decision the client did not apply
 *    becomes `suggested` again (the kill switch); paused, key refused, rate-limit hold: wait;
 *  - a push in doubt: told from its batch or the offer before anything else (doubt.ts);
 *  - a later decision for the offer exists: `superseded`;
 *  - a fault earlier: wait until its retry time; past 24 hours of faults: `failed`;
 *  - the repricer gone or disabled: `failed` / `superseded`; the offer already there: `applied`;
 *  - not sent within 24 hours of its decision: `superseded`, decided again;
 *  - every push answers to the market as last read: unknown for a moment, it waits; unknown or
 *    read too long ago, `superseded`; after a resume, it waits for a page read after it; the
 *    next step of a capped move waits for a read later than the last confirmed step; and it goes
 *    only while the repricer still wants the price from the offers as last read (else
 *    `superseded`, decided again): a wrong view of the market (a glitch that tripped the
 *    breaker, then cleared) sends nothing once a read has corrected it;
 *  - else push: the price itself, or a step toward it when the move is larger than the cap.
 * The price's bounds (floor, ceiling, rrp, grid) are not checked here: the guard checks them
 * once, as they are just before the push (guard.ts).
 * A change that ends for a reason of the connection or the market (the delete, the kill switch,
 * 24 hours of faults or waiting, the repricer disabled, the market moved) is decided again by the evaluator once the connection can send.
 */
export type Plan =
  | {
      readonly kind: 'push';
      readonly change: StoredSendable;
      /** The price planned: the target, or a capped step toward it; not yet checked against the bounds (guard.ts). */
      readonly price: number;
      readonly current: number;
      /** The eligible rivals' prices the repricer decides from now: the breaker's evidence (domain/breaker-evidence.ts). */
      readonly rivalPrices: readonly number[];
    }
  /**
   * Ends without a push. `forget`: it ended for a reason of the connection (not of the price,
   * not for a later decision), so the evaluator forgets the decision and decides it again.
   */
  | { readonly kind: 'move'; readonly change: StoredSendable; readonly to: PriceChangeStatus; readonly reason: string | null; readonly forget: boolean }
  /** A push whose outcome is in doubt (a fault after it left, or no run recorded it): told before any push again (doubt.ts). */
  | { readonly kind: 'doubt'; readonly change: StoredSendable }
  | { readonly kind: 'wait'; readonly change: StoredSendable };

/** A change that goes now, its price planned (not yet checked). */
export type Planned = Extract<Plan, { kind: 'push' }>;
/** A change that ends without a push. */
export type Ending = Extract<Plan, { kind: 'move' }>;

/** Per run: each product read once however many of its changes are planned. */
export class ProductReads {
  private readonly products = new Map<string, Promise<ProductForRepricing | undefined>>();
  constructor(private readonly clientId: string) {}
  get(code: string): Promise<ProductForRepricing | undefined> {
    let read = this.products.get(code);
    if (!read) {
      read = readProductForRepricing(this.clientId, code);
      this.products.set(code, read);
    }
    return read;
  }
}

const move = (change: StoredSendable, to: PriceChangeStatus, reason: string | null, forget = false): Plan => ({ kind: 'move', change, to, reason, forget });
/** Ends for a reason of the connection: decided again when it can send. */
const endForConnection = (change: StoredSendable, to: PriceChangeStatus, reason: string): Plan => move(change, to, reason, true);

/**
 * When a push in doubt is told: after the retry time its fault set (a doubling wait, never
 * under the doubt wait), or, when the sender stopped before recording anything, the doubt wait
 * after it started; time for a batch the marketplace took to settle and show.
 */
const doubtDueMs = (change: StoredSendable): number =>
  change.retryAt !== undefined ? Date.parse(change.retryAt) : Date.parse(change.pushStartedAt ?? '') + PRICE_SENDING.pushInDoubtMs;

/**
 * Whether the market as last read may carry this change now (undefined: it may). Unknown for a
 * moment: it waits; unknown or unread for longer than a known market stays fresh, or read too
 * long ago: it ends, to be decided again from the next read. After a resume, a change decided
 * before it waits for a page read after it (the reader records that read); the next step of a
 * capped move waits for a read after its last confirmed step.
 */
const marketCheck = (
  change: StoredSendable,
  product: ProductForRepricing,
  slot: RepricerSlot,
  connection: StoredConnection,
  nowMs: number,
): Plan | undefined => {
  const { record } = change.stored;
  const market = product.markets.get(slot.connector);
  if (market?.state !== 'known') {
    const since = market ? market.since : record.created_at;
    if (nowMs - Date.parse(since) < MARKET_TIMING.staleAfterMs) return { kind: 'wait', change };
    return endForConnection(change, 'superseded', `Not sent: the product's market has been unknown since ${since}; decided again once a page shows it.`);
  }
  if (nowMs - Date.parse(market.readAt) > MARKET_TIMING.staleAfterMs) {
    return endForConnection(
      change,
      'superseded',
      `Not sent: the product's market was last read at ${market.readAt}, too long ago; decided again from the next read.`,
    );
  }
  const resumedAt = connection.breakerClearedAt;
  if (resumedAt !== undefined && record.created_at <= resumedAt && market.readAt <= resumedAt) return { kind: 'wait', change };
  if (change.confirmedPrice !== undefined) {
    const confirmed = product.decisions.get(decisionId(record.repricer_id, record.offer_id));
    if (market.readAt <= (confirmed?.confirmedAt ?? record.updated_at)) return { kind: 'wait', change };
  }
  return undefined;
};

export const planChange = async (clientId: string, change: StoredSendable, gate: Gate, nowMs: number, products: ProductReads): Promise<Plan> => {
  const { record } = change.stored;
  if (record.status !== 'pending') return { kind: 'wait', change };
  if (gate.kind === 'gone') {
    // The key went with the connection: a push in doubt can no longer be told, and its record says so.
    const reason =
      change.pushToken !== undefined
        ? 'The connection was deleted before the marketplace confirmed this price: it may have reached the marketplace.'
        : 'The connection was deleted before this price was sent.';
    return endForConnection(change, 'failed', reason);
  }
  if (gate.kind === 'closed') return { kind: 'wait', change };
  // A push in doubt is told before anything else, the kill switch included: it may have landed.
  if (change.pushToken !== undefined) {
    const due = doubtDueMs(change);
    return Number.isNaN(due) || nowMs >= due ? { kind: 'doubt', change } : { kind: 'wait', change };
  }
  if (!mayPush(gate, change.requested === true)) {
    return endForConnection(change, 'suggested', 'The connection is in suggest mode: apply this price change to send it.');
  }
  const decisions = await latestOfferDecisions(clientId, record);
  if (decisions[0]?.sk !== change.ref.sk) return move(change, 'superseded', 'A later decision for this offer took its place.');
  // An earlier decision's push in doubt is told before a different price goes for the offer.
  if (decisions.some((decision) => decision.inDoubt && decision.sk !== change.ref.sk)) return { kind: 'wait', change };
  if ((change.attempts ?? 0) > 0 && nowMs - Date.parse(record.created_at) >= PRICE_SENDING.retryWindowMs) {
    return endForConnection(change, 'failed', 'The marketplace could not be reached for 24 hours.');
  }
  if (change.retryAt !== undefined && Date.parse(change.retryAt) > nowMs) return { kind: 'wait', change };

  const product = await products.get(record.product_code);
  const slot = product?.slots.find((s) => s.repricerId === record.repricer_id);
  if (!product || !slot) return move(change, 'failed', 'The repricer was deleted before this price was sent.');
  if (!slot.enabled && change.requested !== true) return endForConnection(change, 'superseded', 'The repricer was disabled before this price was sent.');
  const offer = product.offers.find((o) => o.scope === 'own' && o.fields.offer_id === record.offer_id);
  if (!offer) return move(change, 'failed', 'The offer is no longer known.');
  const step = await priceStepOf(slot.connector);
  // Where the price is now: a capped move's last confirmed step; else the last price the
  // marketplace confirmed for the offer, unless a sync has seen the offer's price since; else the offer as synced.
  const current = change.confirmedPrice ?? ownPriceNow(product, offer);
  if (current === record.new_price) return move(change, 'applied', 'The offer already had this price.');
  // A decision has its day: one that has not reached the marketplace within it (a capped move
  // whatever its confirmed steps, a change held by a pause or a hold) is decided again.
  if (nowMs - Date.parse(record.created_at) >= PRICE_SENDING.decisionWindowMs) {
    return endForConnection(
      change,
      'superseded',
      change.confirmedPrice !== undefined
        ? `Stopped at ${current}: the move to ${record.new_price} did not finish within 24 hours of its decision.`
        : 'Not sent within 24 hours of its decision: decided again from the market as it is now.',
    );
  }
  const offers = engineOffersOf(product);
  // Every push answers to the market as last read (the client's own apply aside: its price is
  // the client's decision, though each step of a capped move toward it still waits for a read).
  if (change.requested !== true || change.confirmedPrice !== undefined) {
    const fresh = marketCheck(change, product, slot, gate.stored, nowMs);
    if (fresh) return fresh;
    if (targetPrice(slot, offers, step, engineContextOf(product, slot.connector))?.price !== record.new_price) {
      return endForConnection(
        change,
        'superseded',
        change.confirmedPrice !== undefined
          ? `Stopped at ${current}: the market read after that step no longer supports ${record.new_price}.`
          : `Not sent: the market as last read no longer supports ${record.new_price}.`,
      );
    }
  }
  const safety = gate.stored.record.safety;
  const price = nextStep(current, record.new_price, step, safety.max_step_percent);
  const rivalPrices = offers.filter((o) => competitorExclusion(slot, o) === undefined).map((o) => o.offer_price);
  return { kind: 'push', change, price, current, rivalPrices };
};
