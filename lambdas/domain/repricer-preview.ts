import * as z from 'zod';
import { targetExplanation } from './explanation.js';
import { MARKET_HOLD_TEXT, MARKET_UNKNOWN_REASONS, type MarketVerdict } from './market-state.js';
import { guardRepricer, holdAt, PRICE_WAR_HOLD, type WarHold, type WarState } from './price-war.js';
import { repricerRecord, type Repricer } from './records.js';
import { decideExplained, type EngineContext, type EngineOffer, type EngineRepricer } from './repricing.js';

/**
 * What a repricer would decide now (GET /v1/repricers/{id}/preview): per own offer the price
 * the engine would record, and the explanation of its target, both from the engine's one plan
 * (`decideExplained`), the one the evaluator records from. Pure; recording nothing is the
 * caller's part.
 */
/**
 * The market a repricer decides from, in the preview and beside its price changes: `known`,
 * `stale` (read too long ago: nothing is decided, down or up; `note` says why), `unknown`
 * (nothing is decided; `reason` says why) or `not_watched` (no connection: the offers the client
 * imported are the market).
 */
export const repricerMarket = z.strictObject({
  state: z.enum(['known', 'stale', 'unknown', 'not_watched']),
  reason: z.enum(MARKET_UNKNOWN_REASONS).nullable(),
  read_at: z.string().nullable(),
  /** Why nothing would be decided, in words; null when the market allows the decision. */
  note: z.string().nullable(),
});
export type RepricerMarket = z.infer<typeof repricerMarket>;

/**
 * An own offer the price-war guard holds (docs/repricing.md, "Price-war guard"): nothing is
 * decided for it until `until`; the rival it was at war with, and since when.
 */
export const repricerHold = z.strictObject({
  offer_id: z.string(),
  reason: z.literal(PRICE_WAR_HOLD),
  rival_offer_id: z.string(),
  rival_seller_id: z.string(),
  since: z.string(),
  until: z.string(),
  note: z.string(),
});
export type RepricerHold = z.infer<typeof repricerHold>;

/** The holds in the API's words. */
export const holdsOf = (holds: readonly { readonly offerId: string; readonly hold: WarHold }[]): RepricerHold[] =>
  holds.map(({ offerId, hold }) => ({
    offer_id: offerId,
    reason: PRICE_WAR_HOLD,
    rival_offer_id: hold.rivalOfferId,
    rival_seller_id: hold.rivalSellerId,
    since: new Date(hold.since).toISOString(),
    until: new Date(hold.until).toISOString(),
    note: `The offer and the rival offer ${hold.rivalOfferId} undercut each other ${hold.undercuts} times within an hour: the price is held until the cool-down ends.`,
  }));

/** The holds in force at `nowMs` among a repricer's war states (by own offer id). */
export const holdsInForce = (states: ReadonlyMap<string, WarState>, nowMs: number): RepricerHold[] =>
  holdsOf(
    [...states].flatMap(([offerId, state]) => {
      const hold = holdAt(state, nowMs);
      return hold ? [{ offerId, hold }] : [];
    }),
  );

/** What the preview reads of the price-war guard: each own offer's state, at `nowMs`. */
export interface PreviewWars {
  readonly stateOf: (offerId: string) => WarState | undefined;
  readonly nowMs: number;
}

export const repricerPreview = z.strictObject({
  /** Null for a repricer only described (POST /v1/repricers/preview): it is not stored. */
  repricer_id: repricerRecord.shape.id.nullable(),
  product_code: z.string(),
  /** False: the repricer decides nothing now; the preview says what it would decide once enabled. */
  enabled: z.boolean(),
  offers: z.array(
    z.strictObject({
      offer_id: z.string(),
      current_price: z.number(),
      /** Null when the engine would skip the offer: the target is its price already, or was the last decision. */
      would_decide: z.number().nullable(),
    }),
  ),
  target: targetExplanation,
  /** The market the decision would come from. */
  market: repricerMarket,
  /** The own offers the price-war guard holds now (nothing is decided for them); empty when none. */
  holds: z.array(repricerHold),
});
export type RepricerPreview = z.infer<typeof repricerPreview>;

export const previewRepricer = (
  repricer: Pick<Repricer, 'buybox_approach' | 'repricer_approach'> & { readonly id: number | null } & {
    readonly product: Pick<Repricer['product'], 'code'>;
  } & EngineRepricer &
    Partial<Pick<Repricer, 'price_war_guard'>>,
  offers: readonly EngineOffer[],
  priceStep: number,
  lastDecided: (offerId: string) => number | undefined,
  /** Undefined: no connection watches the market. */
  verdict?: MarketVerdict,
  context: EngineContext = {},
  /** Undefined: the guard has kept no state (the evaluator's rule still applies to what is seen now). */
  wars: PreviewWars = { stateOf: () => undefined, nowMs: Date.now() },
): RepricerPreview => {
  // A disabled repricer decides nothing; its preview says what it would decide once enabled.
  const plan = decideExplained({ ...repricer, enabled: true }, offers, priceStep, lastDecided, context);
  // The evaluator's gate: an offer the price-war guard holds gets no decision. An unknown or stale market decides nothing, guarded or not.
  const guarded =
    verdict?.decide === false
      ? { decisions: [], holds: [] }
      : guardRepricer({ ...repricer, price_war_guard: repricer.price_war_guard ?? null }, offers, plan.decisions, wars.stateOf, wars.nowMs);
  const wanted = new Map(guarded.decisions.map((decision) => [decision.offerId, decision.price]));
  return {
    repricer_id: repricer.id,
    product_code: repricer.product.code,
    enabled: repricer.enabled,
    offers: offers
      .filter((offer) => offer.own && offer.connector === repricer.connector)
      .map((offer) => ({ offer_id: offer.offer_id, current_price: offer.offer_price, would_decide: wanted.get(offer.offer_id) ?? null })),
    // Enabled for the plan, the explanation is always there.
    target: plan.explanation!,
    market: marketOf(verdict),
    holds: holdsOf(guarded.holds),
  };
};

/** The market summary of a verdict; undefined: no connection watches the market. */
export const marketOf = (verdict: MarketVerdict | undefined): RepricerMarket => {
  if (!verdict) return { state: 'not_watched', reason: null, read_at: null, note: null };
  if (verdict.decide) return { state: 'known', reason: null, read_at: verdict.readAt, note: null };
  if (verdict.why === 'stale') return { state: 'stale', reason: null, read_at: verdict.readAt, note: MARKET_HOLD_TEXT.stale };
  return { state: 'unknown', reason: verdict.why, read_at: null, note: MARKET_HOLD_TEXT[verdict.why] };
};
