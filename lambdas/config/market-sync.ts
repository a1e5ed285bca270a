/**
 * How the service watches a marketplace (docs/design.md, "The marketplace loop", docs/market-sync.md): the
 * schedule, the tiers, the pace of storefront reads and the queues between them. Plain numbers,
 * no CDK: the stack builds its rule, queues and event source mappings from them, and `npm start`
 * drives the same handlers with the same settings (tools/local).
 *
 * The flow: a schedule ticks once a minute and sends one message per connection to the
 * market-sync queue (group: the connection), and runs the read planner, which sends one read per
 * page due to the storefront queue (group: the page); the sync worker runs the connection's
 * own-offer sync when it is due; the storefront reader reads each page within the stage's budget
 * and applies it to every tenant watching it.
 */
export const MARKET_SYNC = {
  scheduleEntry: 'lambdas/functions/schedule-market-syncs/handler.ts',
  workerEntry: 'lambdas/functions/sync-market/handler.ts',
  readerEntry: 'lambdas/functions/read-storefront/handler.ts',
  /** The schedule's period (EventBridge's finest: one minute). Every interval below is a whole number of ticks. */
  tickSeconds: 60,
  /** A connection's full own-offer sync, at a phase of its own within the period (spreads connections over the ticks). */
  ownOffersEverySeconds: 15 * 60,
  /**
   * The fixed tiers the read planner replaced (pages are planned by lambdas/config/read-planner.ts):
   * a repriced product's page every 2 minutes, any other hourly. Kept as what the market view's
   * staleness and the benchmarks' freshness targets are measured against.
   */
  repricedEverySeconds: 2 * 60,
  othersEverySeconds: 60 * 60,
  /**
   * Without a change, the connection's record (last_sync_at) is rewritten at most this often: a
   * sync that finds nothing new writes nothing, and the record still shows within an hour that syncs run.
   */
  recordHeartbeatSeconds: 60 * 60,
  /**
   * A product's market view (domain/market-state.ts): a page read that changed nothing is recorded
   * at most this often, and a view older than the tier, this and a margin is stale (it may lower
   * a price, never raise one). Each recorded read also lets the product's repricers decide again.
   */
  marketHeartbeatSeconds: 4 * 60,
  marketStaleAfterSeconds: 2 * 60 + 4 * 60 + 2 * 60,
  /** Offers per page of the seller API: its largest (reported), so a long list takes fewest requests. */
  ownOffersPageSize: 1_000,
  /** A page that ends the list early while the count says more (the reported page-2 bug): asked again this many times. */
  shortPageRetries: 2,
  /**
   * When the list still ends early, this many of the own offers it did not show are read one by
   * one (`GET /offers/{id}`) per sync, a different share each time, so every known offer is
   * refreshed within a few syncs (and one the marketplace no longer has is marked gone); at the
   * seller API's 10 a second, 200 reads take 20 s.
   */
  unlistedReadsPerSync: 200,
  /** Sync worker: one connection's tick per invocation. */
  workerBatchSize: 1,
  /** A full sync of 100,000 offers is 100 pages and a few thousand table calls: minutes, not 15. */
  workerTimeoutSeconds: 10 * 60,
  workerMemoryMb: 1024,
  workerMaxReceiveCount: 5,
  /** Storefront reader: pages per invocation, read one after another at the reader's pace. */
  readerBatchSize: 10,
  readerTimeoutSeconds: 60,
  readerMemoryMb: 512,
  /** A page that fails (5xx, timeout, rate limit) is read again later; after this many deliveries it is dead-lettered and the page's lease brings it back to the planner. */
  readerMaxReceiveCount: 10,
  /**
   * Requests per second to one storefront host, all readers together: under the limit the
   * storefront is assumed to keep (the simulator's default is 10 a second), so a reader is
   * never refused in normal operation. A 429 or 403 holds every reader for its Retry-After.
   */
  storefrontRequestsPerSecond: 9,
  /** Without a Retry-After, a refused read holds the host this long (doubled on each refusal in a row, up to the cap). */
  storefrontBackoffMs: 5_000,
  storefrontBackoffCapMs: 5 * 60_000,
  /**
   * A page answered without a buy box (`{}`, an unrelated body) is read again after this wait,
   * doubled each time, while its message has been delivered at most `emptyPageRereads` times:
   * a passing blank costs the product seconds, not a look, and a page that stays blank leaves
   * its market unknown after a few reads, each at the host's pace and under its hold.
   */
  emptyPageRereadMs: 2_000,
  emptyPageRereads: 2,
} as const;

/**
 * Readers at once on AWS (the event source's maximum concurrency; 2 is its least), scaling with
 * the stage's rate: the budget is one stored count every reader takes from
 * (lambdas/data/market/read-budget.ts), so more readers never read faster than the rate, and one
 * reader keeps up with about `READS_PER_READER` pages a second (a page answered in about 200 ms).
 */
const READS_PER_READER = 5;
export const readerConcurrency = (requestsPerSecond: number = MARKET_SYNC.storefrontRequestsPerSecond): number =>
  Math.max(2, Math.ceil(requestsPerSecond / READS_PER_READER));

/** The env names of the queues and the pace (set by the stack, and by tools/local). */
export const MARKET_SYNC_QUEUE_URL_ENV = 'MARKET_SYNC_QUEUE_URL';
export const STOREFRONT_QUEUE_URL_ENV = 'STOREFRONT_QUEUE_URL';
export const STOREFRONT_RATE_ENV = 'STOREFRONT_REQUESTS_PER_SECOND';

/** The market view's timing, in the units domain/market-state.ts takes. */
export const MARKET_TIMING = {
  heartbeatMs: MARKET_SYNC.marketHeartbeatSeconds * 1000,
  staleAfterMs: MARKET_SYNC.marketStaleAfterSeconds * 1000,
} as const;
