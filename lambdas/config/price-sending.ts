/**
 * The price sender's settings (docs/price-sending.md), as plain numbers: the stack, the local
 * runtime and the sender read the same ones. The safety limits are the connection's own
 * (domain/connections.ts `safety`); these are the mechanics around them.
 */
export const PRICE_SENDING = {
  /**
   * Waits before each look at a batch's status after sending it, inside the same run: most
   * batches settle within seconds, so most changes are confirmed without waiting for an event.
   */
  confirmPollsMs: [400, 800, 1_200, 2_000, 3_000],
  /** A fault (5xx, timeout, 429 beyond a short wait) is tried again for this long, then the change is `failed`. */
  retryWindowMs: 24 * 3_600_000,
  /**
   * A decision not sent within this (held by a pause or a hold, a capped move still under way)
   * is `superseded` and decided again from the market as it is then.
   */
  decisionWindowMs: 24 * 3_600_000,
  /** The first try again after a fault comes after this; each next one after twice as long, at most `retryMaxMs`. */
  retryBaseMs: 30_000,
  retryMaxMs: 30 * 60_000,
  /** A Retry-After up to this is waited for in the run; a longer one holds the connection's sending until it passes. */
  rateLimitWaitMaxMs: 20_000,
  /** A `sent` change not confirmed after this is looked up by the sweep (its batch, or the offer as synced). */
  unconfirmedAfterMs: 30_000,
  /** A `sent` change the marketplace never confirms within this is `failed`. */
  confirmWindowMs: 24 * 3_600_000,
  /**
   * A push that started but whose outcome no run recorded (the sender stopped in between)
   * is left alone this long, so a batch the marketplace took can settle and show; then the
   * offer is read and the push repeated only if its price is not there.
   */
  pushInDoubtMs: 3 * 60_000,
  /**
   * A push the marketplace answered with a 5xx is pushed again in the run, with the same prices,
   * after each of these waits (an absolute price pushed twice lands once); still failing, it is
   * in doubt and the sweep tries the same prices again after `answeredDoubtRetryMs`, doubling.
   * A different price for the offer waits until the doubt is told (`pushInDoubtMs`).
   */
  repushWaitsMs: [1_000, 2_000, 4_000],
  answeredDoubtRetryMs: 5_000,
  /** Reads and writes of one run in flight at once (each change's own items: no two touch the same one). */
  parallelCalls: 8,
  /**
   * Pending and sent changes a sweep reads per page, and pages per status and run: every page
   * when there are no more; else this many, from a page that moves on each minute, so each
   * change comes round within a few sweeps and none waits behind older ones that cannot go.
   */
  sweepPageSize: 200,
  sweepPagesPerRun: 5,
  /** How long the per-offer push counters and batch references are kept (DynamoDB TTL). */
  pushCountRetentionDays: 2,
  batchRetentionDays: 3,
  /** The sender's event source: messages per invocation, receives before the dead-letter queue, and its function's timeout. */
  senderBatchSize: 10,
  senderMaxReceiveCount: 5,
  senderTimeoutSeconds: 120,
  senderMemoryMb: 512,
  senderEntry: 'lambdas/functions/send-prices/handler.ts',
} as const;

/** The sender queue's URL, for the functions that send to it. */
export const PRICE_SENDER_QUEUE_URL_ENV = 'PRICE_SENDER_QUEUE_URL';
