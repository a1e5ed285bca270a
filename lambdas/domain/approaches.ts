/**
 * The repricer's approaches and the reasons a price change gives (docs/repricing.md). Declared
 * apart from records.ts, which re-exports them, so the explanation's schema (explanation.ts) can
 * use them while records.ts uses the explanation.
 *
 * A new `buybox_approach` is its value here, its file in strategies/ (registered in
 * strategies/table.ts, which the compiler holds to this list) and its section of the docs.
 */
export const BUYBOX_APPROACHES = ['cheapest', 'match', 'buybox', 'fastest_delivery'] as const;
export type BuyboxApproach = (typeof BUYBOX_APPROACHES)[number];

export const REPRICER_APPROACHES = ['fixed', 'cost_based'] as const;
export type RepricerApproach = (typeof REPRICER_APPROACHES)[number];

/**
 * `undercut`, `floor`, `ceiling` and `no_competition` as `cheapest` has always given them;
 * `match` when the target equals a rival (`match`), `in_stock_premium` when the in-stock premium
 * rule set it (`buybox`).
 */
export const PRICE_CHANGE_REASON_VALUES = ['undercut', 'floor', 'ceiling', 'no_competition', 'match', 'in_stock_premium'] as const;
export type PriceChangeReasonValue = (typeof PRICE_CHANGE_REASON_VALUES)[number];
