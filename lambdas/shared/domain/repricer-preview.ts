import * as z from 'zod';
import { explainTarget, targetExplanation } from './explain-target.js';
import { MARKET_HOLD_TEXT, MARKET_UNKNOWN_REASONS, type MarketVerdict } from './market-state.js';
import { repricerRecord, type Repricer } from './records.js';
import { decide, type EngineOffer, type EngineRepricer } from './repricing.js';

/**
 * What a repricer would decide now (GET /v1/repricers/{id}/preview): per own offer the price
 * the engine's `decide` would record, and the explanation of its target. Pure; recording
 * nothing is the caller's part.
 */
/**
 * The market a repricer decides from, in the preview and beside its price changes: `known`,
 * `stale` (read too long ago: it may lower a price, never raise one), `unknown` (nothing is
 * decided; `reason` says why) or `not_watched` (no connection: the offers the client imported
 * are the market).
 */
export const repricerMarket = z.strictObject({
  state: z.enum(['known', 'stale', 'unknown', 'not_watched']),
  reason: z.enum(MARKET_UNKNOWN_REASONS).nullable(),
  read_at: z.string().nullable(),
  /** Why nothing (or no raise) would be decided, in words; null when the market allows the decision. */
  note: z.string().nullable(),
});
export type RepricerMarket = z.infer<typeof repricerMarket>;

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
});
export type RepricerPreview = z.infer<typeof repricerPreview>;

export const previewRepricer = (
  repricer: Pick<Repricer, 'buybox_approach' | 'repricer_approach'> & { readonly id: number | null } & {
    readonly product: Pick<Repricer['product'], 'code'>;
  } & EngineRepricer,
  offers: readonly EngineOffer[],
  priceStep: number,
  lastDecided: (offerId: string) => number | undefined,
  /** Undefined: no connection watches the market. */
  verdict?: MarketVerdict,
): RepricerPreview => {
  // A disabled repricer decides nothing; its preview says what it would decide once enabled.
  const decisions = verdict?.decide === false ? [] : decide({ ...repricer, enabled: true }, offers, priceStep, lastDecided);
  const allowed = decisions.filter((decision) => verdict?.decide !== true || verdict.mayRaise || decision.price <= decision.oldPrice);
  const decided = new Map(allowed.map((decision) => [decision.offerId, decision.price]));
  return {
    repricer_id: repricer.id,
    product_code: repricer.product.code,
    enabled: repricer.enabled,
    offers: offers
      .filter((offer) => offer.own && offer.connector === repricer.connector)
      .map((offer) => ({ offer_id: offer.offer_id, current_price: offer.offer_price, would_decide: decided.get(offer.offer_id) ?? null })),
    target: explainTarget(repricer, offers, priceStep),
    market: marketOf(verdict),
  };
};

/** The market summary of a verdict; undefined: no connection watches the market. */
export const marketOf = (verdict: MarketVerdict | undefined): RepricerMarket => {
  if (!verdict) return { state: 'not_watched', reason: null, read_at: null, note: null };
  if (!verdict.decide) return { state: 'unknown', reason: verdict.why, read_at: null, note: MARKET_HOLD_TEXT[verdict.why] };
  return verdict.mayRaise
    ? { state: 'known', reason: null, read_at: verdict.readAt, note: null }
    : { state: 'stale', reason: null, read_at: verdict.readAt, note: MARKET_HOLD_TEXT.stale };
};
