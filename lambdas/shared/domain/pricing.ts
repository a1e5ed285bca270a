import { ceilDiv, centsToNumber, toCents, toDecimal } from './money.js';
import type { FeeEstimates, Product, Repricer } from './records.js';

export interface PricingInput {
  readonly preferredPrice: number;
  readonly preferredProfit: number;
  readonly minProfit: number;
  /** Stock on hand: > 0 prices with the `instock` fees, else with `leadtime`. */
  readonly soh: number;
  readonly feeEstimates: FeeEstimates | null;
  readonly connectorUid: string;
}

export interface PricingResult {
  readonly minPrice: number;
  readonly minProfit: number;
  readonly fixedFulfilmentFee: number;
}

export type PricingOutcome = { readonly ok: true; readonly value: PricingResult } | { readonly ok: false; readonly reason: string };

/**
 * The computed fields of a repricer (docs/api.md, "Computed fields"):
 *   C = P - r*P - F - preferred_profit           (implied unit cost)
 *   min_price = (C + F + min_profit) / (1 - r)     rounded up to the cent
 * which simplifies to P - (preferred_profit - min_profit) / (1 - r). All in integer cents and
 * an exact rational commission rate r = commission_percentage / 100.
 */
export const computePricing = (input: PricingInput): PricingOutcome => {
  const stockMode = input.soh > 0 ? 'instock' : 'leadtime';
  const estimate = input.feeEstimates?.[input.connectorUid]?.[stockMode];
  const fulfilment = estimate?.fulfilment ?? 0;
  const rate = toDecimal(estimate?.commission_percentage ?? 0);
  // r = rate.numerator / rateDenominator
  const rateDenominator = 100n * 10n ** BigInt(rate.scale);
  const keep = rateDenominator - rate.numerator; // (1 - r) * rateDenominator
  if (keep <= 0n) {
    return { ok: false, reason: 'The commission percentage is 100 or more, so no price can carry a profit.' };
  }
  if (input.minProfit > input.preferredProfit) {
    return { ok: false, reason: 'min_profit must not exceed preferred_profit.' };
  }
  const price = toCents(input.preferredPrice);
  const profitGap = toCents(input.preferredProfit) - toCents(input.minProfit);
  const minPriceCents = ceilDiv(price * keep - profitGap * rateDenominator, keep);
  if (minPriceCents <= 0n) {
    return {
      ok: false,
      reason: 'The preferred profit is larger than the preferred price can carry: the minimum price would not be positive.',
    };
  }
  return {
    ok: true,
    value: { minPrice: centsToNumber(minPriceCents), minProfit: input.minProfit, fixedFulfilmentFee: fulfilment },
  };
};

/** The fields of a repricer that are computed, never given. */
export type ComputedFields = Pick<Repricer, 'min_price' | 'min_profit' | 'fixed_fulfilment_fee'>;

export type ComputedFieldsOutcome = { readonly ok: true; readonly fields: ComputedFields } | { readonly ok: false; readonly reason: string };

/**
 * `computePricing` in a repricer's own terms: its preferences, its product (as it is now: the
 * stock on hand picks the fees) and its connector. Creates, PATCHes, imports and the demo data
 * all price a repricer through this one function.
 */
export const computedFields = (
  preferences: Pick<Repricer, 'preferred_price' | 'preferred_profit' | 'min_profit'>,
  product: Pick<Product, 'soh' | 'fee_estimates'>,
  connectorUid: string,
): ComputedFieldsOutcome => {
  const pricing = computePricing({
    preferredPrice: preferences.preferred_price,
    preferredProfit: preferences.preferred_profit,
    minProfit: preferences.min_profit,
    soh: product.soh,
    feeEstimates: product.fee_estimates,
    connectorUid,
  });
  if (!pricing.ok) return pricing;
  return {
    ok: true,
    fields: { min_price: pricing.value.minPrice, min_profit: pricing.value.minProfit, fixed_fulfilment_fee: pricing.value.fixedFulfilmentFee },
  };
};
