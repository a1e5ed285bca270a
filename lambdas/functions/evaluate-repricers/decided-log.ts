/**
 * The log line the evaluator writes for each message that recorded price changes. The stack's
 * dashboard counts price changes per minute from it (a metric filter), so the two share it.
 */
export const PRICE_CHANGES_LOG = { message: 'Prices decided', countField: 'priceChanges', metricName: 'PriceChanges' } as const;
