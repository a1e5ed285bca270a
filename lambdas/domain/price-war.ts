import * as z from 'zod';
import { toCents } from './money.js';
import { MAX_GUARD_UNDERCUTS, type PriceWarGuard } from './records.js';
import { competitorExclusion, type EngineOffer, type EngineRepricer } from './repricing.js';

/**
 * The price-war guard (docs/repricing.md, "Price-war guard"): when the own offer and one rival
 * have undercut each other more than `guard.undercuts` times within an hour, the repricer holds
 * that offer's price (decides nothing for it, reason `price_war_hold`) for `cooldown_minutes`.
 *
 * Counted from what the evaluator sees on each run for one own offer:
 *  - the rival undercut: a tracked rival's price fell, to under the own offer's price;
 *  - the own undercut: the repricer decides a lower price, under that rival's (its lowest competitor).
 * A war is detected on the undercut that makes the count exceed the setting; the undercut the
 * repricer would make then is not made. When the hold ends, that rival's count starts from zero.
 *
 * Pure. The state is small and bounded: at most MAX_TRACKED_RIVALS rivals (the cheapest eligible
 * ones the last run saw), each with the times of its undercuts in the last hour, at most one more
 * than the largest setting.
 */
export const WAR_WINDOW_MS = 3_600_000;
export const MAX_TRACKED_RIVALS = 5;
const MAX_KEPT_UNDERCUTS = MAX_GUARD_UNDERCUTS + 1;
export const PRICE_WAR_HOLD = 'price_war_hold';

const trackedRival = z.object({
  offerId: z.string(),
  sellerId: z.string(),
  /** Its price as the last run saw it: a fall from it is a move. */
  price: z.number(),
  /** When an undercut between it and the own offer happened (ms), oldest first, within the last hour. */
  undercuts: z.array(z.number()).max(MAX_KEPT_UNDERCUTS),
});

const warHold = z.object({
  rivalOfferId: z.string(),
  rivalSellerId: z.string(),
  /** When the war was detected (ms): with the offer, what names the war. */
  since: z.number(),
  until: z.number(),
  /** The undercuts counted within the hour when it was detected. */
  undercuts: z.int().min(1),
});

export const warState = z.object({
  rivals: z.array(trackedRival).max(MAX_TRACKED_RIVALS),
  hold: warHold.nullable(),
});
export type WarState = z.infer<typeof warState>;
export type WarHold = z.infer<typeof warHold>;

export const NO_WAR: WarState = { rivals: [], hold: null };

export interface WarRival {
  readonly offerId: string;
  readonly sellerId: string;
  readonly price: number;
}

export interface WarObservation {
  readonly nowMs: number;
  readonly guard: PriceWarGuard;
  /** The own offer's price now. */
  readonly ownPrice: number;
  /** The rivals the repricer competes with (its competitor filters applied). */
  readonly rivals: readonly WarRival[];
  /** What the repricer would decide for the offer, when anything: the price and the lowest competitor it undercuts. */
  readonly decision?: { readonly price: number; readonly lowestOfferId?: string | undefined; readonly lowestPrice?: number | undefined } | undefined;
}

export type WarVerdict =
  | { readonly kind: 'decide'; readonly state: WarState }
  /** `detected`: this run found the war (what PRICE_WAR_DETECTED announces); false while an earlier hold lasts. */
  | { readonly kind: 'hold'; readonly state: WarState; readonly hold: WarHold; readonly detected: boolean };

const cents = toCents;
const byPriceThenId = (a: WarRival, b: WarRival) => Number(cents(a.price) - cents(b.price)) || (a.offerId < b.offerId ? -1 : a.offerId > b.offerId ? 1 : 0);

/** The hold in force at `nowMs`, if any. */
export const holdAt = (state: WarState | undefined, nowMs: number): WarHold | undefined => (state?.hold && nowMs < state.hold.until ? state.hold : undefined);

/** The guard's verdict for one own offer on one run, with the state to keep. */
export const priceWarVerdict = (before: WarState | undefined, seen: WarObservation): WarVerdict => {
  const { nowMs, guard } = seen;
  const recent = (times: readonly number[]) => times.filter((t) => t > nowMs - WAR_WINDOW_MS && t <= nowMs);
  const previous = before ?? NO_WAR;
  const held = holdAt(previous, nowMs);
  // A hold that ended leaves its rival's count at zero: a new war is counted anew.
  const ended = previous.hold && !held ? previous.hold.rivalOfferId : undefined;
  const known = new Map(previous.rivals.map((rival) => [rival.offerId, rival]));
  const ownCents = cents(seen.ownPrice);
  const rivals = [...seen.rivals]
    .sort(byPriceThenId)
    .slice(0, MAX_TRACKED_RIVALS)
    .map((rival) => {
      const last = known.get(rival.offerId);
      const kept = last && rival.offerId !== ended ? recent(last.undercuts) : [];
      // While a hold lasts nothing is counted: the prices are only followed.
      const undercut = !held && last !== undefined && cents(rival.price) < cents(last.price) && cents(rival.price) < ownCents;
      return { offerId: rival.offerId, sellerId: rival.sellerId, price: rival.price, undercuts: undercut ? [...kept, nowMs] : kept };
    });
  if (held) return { kind: 'hold', state: { rivals: rivals.map(capped), hold: held }, hold: held, detected: false };

  const { decision } = seen;
  const undercutting =
    decision?.lowestOfferId !== undefined &&
    decision.lowestPrice !== undefined &&
    cents(decision.price) < ownCents &&
    cents(decision.price) < cents(decision.lowestPrice)
      ? decision.lowestOfferId
      : undefined;
  const counted = rivals.map((rival) => (rival.offerId === undercutting ? { ...rival, undercuts: [...rival.undercuts, nowMs] } : rival));
  const warring = counted.filter((rival) => rival.undercuts.length > guard.undercuts).sort(byPriceThenId)[0];
  if (warring) {
    const hold: WarHold = {
      rivalOfferId: warring.offerId,
      rivalSellerId: warring.sellerId,
      since: nowMs,
      until: nowMs + guard.cooldown_minutes * 60_000,
      undercuts: warring.undercuts.length,
    };
    // The undercut that made the war is not made: the state keeps the rivals as they were seen before it.
    return { kind: 'hold', state: { rivals: rivals.map(capped), hold }, hold, detected: true };
  }
  return { kind: 'decide', state: { rivals: counted.map(capped), hold: null } };
};

const capped = (rival: WarState['rivals'][number]) => ({ ...rival, undercuts: rival.undercuts.slice(-MAX_KEPT_UNDERCUTS) });

/** Whether two states are the same (so the evaluator need not write it again). */
export const sameWarState = (a: WarState | undefined, b: WarState): boolean => JSON.stringify(a ?? NO_WAR) === JSON.stringify(b);

/** A decision of the engine, as far as the guard reads it. */
export interface GuardedDecision {
  readonly offerId: string;
  readonly price: number;
  readonly lowest?: { readonly price: number; readonly offerId: string } | undefined;
}

export interface GuardInput<D extends GuardedDecision> {
  readonly guard: PriceWarGuard;
  readonly nowMs: number;
  /** The client's own offers the repricer prices. */
  readonly ownOffers: readonly { readonly offerId: string; readonly price: number }[];
  readonly rivals: readonly WarRival[];
  readonly decisions: readonly D[];
  readonly stateOf: (offerId: string) => WarState | undefined;
}

export interface GuardOutcome<D> {
  /** The decisions the guard lets through. */
  readonly decisions: D[];
  /** The offers held now, and until when. */
  readonly holds: { readonly offerId: string; readonly hold: WarHold; readonly detected: boolean }[];
  /** The states that changed: what the evaluator writes back. */
  readonly changed: { readonly offerId: string; readonly state: WarState }[];
}

/** The guard around the engine's decisions for a repricer's own offers: each offer's verdict, and the states to keep. */
export const guardDecisions = <D extends GuardedDecision>(input: GuardInput<D>): GuardOutcome<D> => {
  const outcome: GuardOutcome<D> = { decisions: [], holds: [], changed: [] };
  for (const own of input.ownOffers) {
    const decision = input.decisions.find((d) => d.offerId === own.offerId);
    const before = input.stateOf(own.offerId);
    const verdict = priceWarVerdict(before, {
      nowMs: input.nowMs,
      guard: input.guard,
      ownPrice: own.price,
      rivals: input.rivals,
      decision: decision && { price: decision.price, lowestOfferId: decision.lowest?.offerId, lowestPrice: decision.lowest?.price },
    });
    if (verdict.kind === 'hold') outcome.holds.push({ offerId: own.offerId, hold: verdict.hold, detected: verdict.detected });
    else if (decision) outcome.decisions.push(decision);
    if (!sameWarState(before, verdict.state)) outcome.changed.push({ offerId: own.offerId, state: verdict.state });
  }
  return outcome;
};

/**
 * The guard around `decide` for one repricer, as the evaluator and the preview apply it: without
 * a guard every decision goes through and nothing is kept; with one, an offer in a war is held.
 * The rivals are the offers the repricer competes with (its competitor filters applied).
 */
export const guardRepricer = <D extends GuardedDecision>(
  repricer: EngineRepricer & { readonly price_war_guard: PriceWarGuard | null },
  offers: readonly EngineOffer[],
  decisions: readonly D[],
  stateOf: (offerId: string) => WarState | undefined,
  nowMs: number,
): GuardOutcome<D> => {
  const guard = repricer.price_war_guard;
  if (!guard) return { decisions: [...decisions], holds: [], changed: [] };
  return guardDecisions({
    guard,
    nowMs,
    ownOffers: offers.filter((o) => o.own && o.connector === repricer.connector).map((o) => ({ offerId: o.offer_id, price: o.offer_price })),
    rivals: offers
      .filter((o) => competitorExclusion(repricer, o) === undefined)
      .map((o) => ({ offerId: o.offer_id, sellerId: o.seller_id ?? '', price: o.offer_price })),
    decisions,
    stateOf,
  });
};
