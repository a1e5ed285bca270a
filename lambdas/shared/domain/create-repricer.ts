import * as z from 'zod';
import { hasAtMostTwoDecimals } from './money.js';
import { storableNumber } from './numbers.js';
import { BUYBOX_APPROACHES, connectorUid, MAX_MONEY, productCode, REPRICER_APPROACHES, type FeeEstimates } from './records.js';

const amount = (min: 'positive' | 'nonnegative') =>
  (min === 'positive' ? storableNumber().gt(0) : storableNumber().min(0))
    .max(MAX_MONEY)
    .refine(hasAtMostTwoDecimals, { message: 'Must have at most 2 decimals.' });

/** `POST /v1/repricers/`: unknown fields and wrong types are refused, never coerced. */
export const createRepricerBody = z.strictObject({
  product_code: productCode,
  preferred_price: amount('positive'),
  preferred_profit: amount('nonnegative'),
  buybox_approach: z.enum(BUYBOX_APPROACHES).default('cheapest'),
  repricer_approach: z.enum(REPRICER_APPROACHES).default('fixed'),
  enabled: z.boolean().default(true),
  connector: connectorUid.optional(),
  min_profit: amount('nonnegative').default(0),
});
export type CreateRepricerBody = z.output<typeof createRepricerBody>;

export type ConnectorChoice = { readonly ok: true; readonly uid: string } | { readonly ok: false; readonly message: string };

/**
 * The connector a repricer is for: the product's only priced connector, the one the body
 * names among several, or the client's default when the product has no fee estimates.
 */
export const chooseConnector = (feeEstimates: FeeEstimates | null, requested: string | undefined, defaultConnector: string): ConnectorChoice => {
  const choices = Object.keys(feeEstimates ?? {}).sort();
  if (choices.length === 0) return { ok: true, uid: requested ?? defaultConnector };
  if (requested !== undefined) {
    return choices.includes(requested)
      ? { ok: true, uid: requested }
      : { ok: false, message: `The product has no fee estimates for this connector; choose one of: ${choices.join(', ')}.` };
  }
  if (choices.length === 1) return { ok: true, uid: choices[0]! };
  return { ok: false, message: `The product is sold on several connectors; name one in "connector": ${choices.join(', ')}.` };
};
