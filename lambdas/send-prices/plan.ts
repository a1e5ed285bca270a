import { PRICE_SENDING } from '../config/price-sending.js';
import type { StoredSendable } from '../data/price-changes/status.js';
import { newestDecisionSk } from '../data/price-changes/sending.js';
import {
  decisionId,
  engineContextOf,
  engineOffersOf,
  ownPriceNow,
  priceStepOf,
  readProductForRepricing,
  type ProductForRepricing,
} from '../data/repricers/product-partition.js';
import { checkSendable, nextPush, type SendBounds } from '../domain/price-push.js';
import { competitorExclusion, targetPrice } from '../domain/repricing.js';
import type { PriceChangeStatus } from '../domain/records.js';
import { mayPush, type Gate } from './gate.js';

/**
 * What to do with one pending price change now, from the change, its connection, the repricer
 * and the offer as they are at send time (DESIGN.md section 7):
 *  - the connection deleted: `failed`; in suggest mode a decision the client did not apply
 *    becomes `suggested` again (the kill switch); paused, key refused, rate-limit hold: wait;
 *  - a push in doubt: told from its batch or the offer before anything else (doubt.ts);
 *  - a later decision for the offer exists: `superseded`;
 *  - a fault earlier: wait until its retry time; past 24 hours of faults: `failed`;
 *  - the repricer gone or disabled: `failed` / `superseded`; the price off the grid, under the
 *    floor, over the ceiling or the rrp: `failed` with the reason; the offer already there: `applied`;
 *  - the next step of a capped move: only after a storefront read later than the last confirmed
 *    step, and only while the repricer still wants the price from what that read showed (else
 *    `superseded`, decided again): a wrong view of the market moves a price by one step at most;
 *  - else push: the price itself, or a step toward it when the move is larger than the cap.
 * A change that ends for a reason of the connection (the delete, the kill switch, 24 hours of
 * faults, the repricer disabled) is decided again by the evaluator once the connection can send.
 */
export type Plan =
  | {
      readonly kind: 'push';
      readonly change: StoredSendable;
      readonly price: number;
      readonly current: number;
      readonly bounds: SendBounds;
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

export const planChange = async (clientId: string, change: StoredSendable, gate: Gate, nowMs: number, products: ProductReads): Promise<Plan> => {
  const { record } = change.stored;
  if (record.status !== 'pending') return { kind: 'wait', change };
  if (gate.kind === 'gone') return endForConnection(change, 'failed', 'The connection was deleted before this price was sent.');
  if (gate.kind === 'open' && !mayPush(gate, change.requested === true)) {
    return endForConnection(change, 'suggested', 'The connection is in suggest mode: apply this price change to send it.');
  }
  if (gate.kind === 'closed') return { kind: 'wait', change };
  if (change.pushToken !== undefined) {
    const due = doubtDueMs(change);
    return Number.isNaN(due) || nowMs >= due ? { kind: 'doubt', change } : { kind: 'wait', change };
  }
  if ((await newestDecisionSk(clientId, record)) !== change.ref.sk) return move(change, 'superseded', 'A later decision for this offer took its place.');
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
  const rrp = product.product.retail_price > 0 ? product.product.retail_price : undefined;
  const bounds: SendBounds = { min_price: slot.min_price, preferred_price: slot.preferred_price, rrp, step: await priceStepOf(slot.connector) };
  const check = checkSendable(record.new_price, bounds);
  if (!check.ok) return move(change, 'failed', `Not sent: ${check.reason}.`);
  // Where the price is now: a capped move's last confirmed step; else the last price the
  // marketplace confirmed for the offer, unless a sync has seen the offer's price since; else the offer as synced.
  const confirmed = product.decisions.get(decisionId(record.repricer_id, record.offer_id));
  const current = change.confirmedPrice ?? ownPriceNow(product, offer);
  if (current === record.new_price) return move(change, 'applied', 'The offer already had this price.');
  const offers = engineOffersOf(product);
  if (change.confirmedPrice !== undefined) {
    // A capped move goes on only from a market read after its last step was confirmed.
    const market = product.markets.get(slot.connector);
    const stepAt = confirmed?.confirmedAt ?? change.stored.record.updated_at;
    if (market?.state !== 'known' || market.readAt <= stepAt) return { kind: 'wait', change };
    if (targetPrice(slot, offers, bounds.step, engineContextOf(product, slot.connector))?.price !== record.new_price) {
      return endForConnection(change, 'superseded', `Stopped at ${current}: the market read after that step no longer supports ${record.new_price}.`);
    }
  }
  const safety = gate.stored.record.safety;
  const price = nextPush(current, record.new_price, bounds, safety.max_step_percent);
  // Never reached: nextPush stays inside the bounds; checked again so no code path can send outside them.
  const pushCheck = checkSendable(price, bounds);
  if (!pushCheck.ok) return move(change, 'failed', `Not sent: ${pushCheck.reason}.`);
  const rivalPrices = offers.filter((o) => competitorExclusion(slot, o) === undefined).map((o) => o.offer_price);
  return { kind: 'push', change, price, current, bounds, rivalPrices };
};
