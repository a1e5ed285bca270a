import * as z from 'zod';
import { explainTarget, targetExplanation } from './explain-target.js';
import { repricerRecord, type Repricer } from './records.js';
import { decide, type EngineOffer, type EngineRepricer } from './repricing.js';

/**
 * What a repricer would decide now (GET /v1/repricers/{id}/preview): per own offer the price
 * the engine's `decide` would record, and the explanation of its target. Pure; recording
 * nothing is the caller's part.
 */
export const repricerPreview = z.strictObject({
  repricer_id: repricerRecord.shape.id,
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
});
export type RepricerPreview = z.infer<typeof repricerPreview>;

export const previewRepricer = (
  repricer: Pick<Repricer, 'id' | 'buybox_approach' | 'repricer_approach'> & { readonly product: Pick<Repricer['product'], 'code'> } & EngineRepricer,
  offers: readonly EngineOffer[],
  priceStep: number,
  lastDecided: (offerId: string) => number | undefined,
): RepricerPreview => {
  // A disabled repricer decides nothing; its preview says what it would decide once enabled.
  const decided = new Map(decide({ ...repricer, enabled: true }, offers, priceStep, lastDecided).map((decision) => [decision.offerId, decision.price]));
  return {
    repricer_id: repricer.id,
    product_code: repricer.product.code,
    enabled: repricer.enabled,
    offers: offers
      .filter((offer) => offer.own && offer.connector === repricer.connector)
      .map((offer) => ({ offer_id: offer.offer_id, current_price: offer.offer_price, would_decide: decided.get(offer.offer_id) ?? null })),
    target: explainTarget(repricer, offers, priceStep),
  };
};
