import { ceilDiv, centsToNumber, toCents, toDecimal } from './money.js';
import { MAX_MONEY, type FeeEstimates, type Product, type Repricer } from './records.js';

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
/**
 * The fees of the offer's current stock mode on the connector (all 0 when not estimated): the
 * fulfilment fee, and the commission rate r as the exact fraction (rateDenominator - keep) /
 * rateDenominator, so `keep` is (1 - r) * rateDenominator.
 */
const feesOf = (soh: number, feeEstimates: FeeEstimates | null, connectorUid: string) => {
  const stockMode = soh > 0 ? 'instock' : 'leadtime';
  const estimate = feeEstimates?.[connectorUid]?.[stockMode];
  const rate = toDecimal(estimate?.commission_percentage ?? 0);
  const rateDenominator = 100n * 10n ** BigInt(rate.scale);
  return { fulfilment: estimate?.fulfilment ?? 0, rateDenominator, keep: rateDenominator - rate.numerator };
};

const NO_PROFITABLE_PRICE = 'The commission percentage is 100 or more, so no price can carry a profit.';

export const computePricing = (input: PricingInput): PricingOutcome => {
  const { fulfilment, rateDenominator, keep } = feesOf(input.soh, input.feeEstimates, input.connectorUid);
  if (keep <= 0n) {
    return { ok: false, reason: NO_PROFITABLE_PRICE };
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

/** The fields a `cost_based` repricer computes: its ceiling (`preferred_price`) too. */
export type CostBasedFields = ComputedFields & Pick<Repricer, 'preferred_price'>;

/**
 * Why a `cost_based` repricer cannot be priced: `field` names the request's field at fault (a
 * 400), none when the product's fees are (a 422).
 */
export type CostBasedOutcome =
  { readonly ok: true; readonly fields: CostBasedFields } | { readonly ok: false; readonly field?: 'unit_cost' | 'min_profit'; readonly reason: string };

/**
 * The bounds of `repricer_approach: cost_based` (docs/api.md, "Computed fields"): the price that
 * leaves `profit` after commission and fulfilment of the current stock mode,
 *   price(profit) = (unit_cost + F + profit) / (1 - r)    rounded up to the cent,
 * so min_price = price(min_profit) and preferred_price = price(preferred_profit). Rounding up
 * only adds to the profit: each bound leaves at least its profit. Exact, as `computePricing`.
 */
export const costBasedFields = (
  preferences: { readonly unit_cost: number; readonly preferred_profit: number; readonly min_profit: number },
  product: Pick<Product, 'soh' | 'fee_estimates'>,
  connectorUid: string,
): CostBasedOutcome => {
  const { fulfilment, rateDenominator, keep } = feesOf(product.soh, product.fee_estimates, connectorUid);
  if (keep <= 0n) return { ok: false, reason: NO_PROFITABLE_PRICE };
  if (preferences.min_profit > preferences.preferred_profit) {
    return { ok: false, field: 'min_profit', reason: 'min_profit must not exceed preferred_profit: the floor would lie above the ceiling.' };
  }
  const costs = toCents(preferences.unit_cost) + toCents(fulfilment);
  const priceFor = (profit: number) => ceilDiv((costs + toCents(profit)) * rateDenominator, keep);
  const floor = priceFor(preferences.min_profit);
  const ceiling = priceFor(preferences.preferred_profit);
  if (floor <= 0n) {
    return { ok: false, field: 'unit_cost', reason: 'With this unit_cost, the fees and min_profit the floor would not be positive: give the unit cost.' };
  }
  if (ceiling > toCents(MAX_MONEY)) {
    return { ok: false, field: 'unit_cost', reason: `With this unit_cost, the fees and preferred_profit the ceiling would exceed ${MAX_MONEY}.` };
  }
  return {
    ok: true,
    fields: {
      preferred_price: centsToNumber(ceiling),
      min_price: centsToNumber(floor),
      min_profit: preferences.min_profit,
      fixed_fulfilment_fee: fulfilment,
    },
  };
};
