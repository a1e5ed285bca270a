import { PRICE_SENDING } from '../../config/price-sending.js';
import { getConnection } from '../../data/connections/connections.js';
import { holdSellerApi, sellerApiHeldUntil } from '../../data/connections/seller-api-hold.js';
import { logger } from '../../observability/logger.js';
import { MarketplaceRateLimited, type MarketplacePort } from '../../marketplace/port.js';
import { withMarketplaceRetries, type RetryOptions } from '../../marketplace/retrying.js';

/**
 * The sender's reads of the seller API (a batch's status, an offer whose push is in doubt),
 * behind the connection's one seller-API hold (data/connections/seller-api-hold.ts), which the sync worker
 * may set while a run is under way: no read is made while it is in force, and a 429 that is not
 * waited out sets it, so the run's next reads (and the sync worker's) wait too. One per run.
 */
export const HELD = Symbol('the seller API is on hold');

/** How long a run trusts its last look at the stored hold before looking again. */
const HOLD_RECHECK_MS = 1_000;

export interface ReadDeps {
  readonly now: () => number;
  readonly retry?: Partial<RetryOptions>;
}

export class SellerApiReads {
  private heldUntilMs = 0;
  private checkedAtMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clientId: string,
    private readonly connector: string,
    private readonly port: MarketplacePort,
    private readonly apiKey: string,
    private readonly deps: ReadDeps,
  ) {}

  /** Whether the hold is in force now (the stored one, read again at most once a second, or one this run set). */
  async held(): Promise<boolean> {
    const nowMs = this.deps.now();
    if (nowMs - this.checkedAtMs >= HOLD_RECHECK_MS) {
      this.checkedAtMs = nowMs;
      const stored = await getConnection(this.clientId, this.connector);
      const until = stored ? sellerApiHeldUntil(stored, nowMs) : undefined;
      if (until !== undefined) this.heldUntilMs = Math.max(this.heldUntilMs, Date.parse(until));
    }
    return this.heldUntilMs > nowMs;
  }

  /**
   * The read's answer, or HELD when the hold is in force (nothing was asked) or the read met a
   * 429 (the hold is set). With `retried`, faults are retried as withMarketplaceRetries does;
   * any other fault is thrown.
   */
  async read<T>(call: (port: MarketplacePort, apiKey: string) => Promise<T>, { retried = false } = {}): Promise<T | typeof HELD> {
    if (await this.held()) return HELD;
    try {
      const once = () => call(this.port, this.apiKey);
      return retried ? await withMarketplaceRetries(once, { ...this.deps.retry, maxWaitMs: PRICE_SENDING.rateLimitWaitMaxMs }) : await once();
    } catch (error) {
      if (!(error instanceof MarketplaceRateLimited)) throw error;
      await this.hold(error.retryAfterMs);
      return HELD;
    }
  }

  private async hold(retryAfterMs: number): Promise<void> {
    const until = this.deps.now() + retryAfterMs;
    this.heldUntilMs = Math.max(this.heldUntilMs, until);
    await holdSellerApi(this.clientId, this.connector, new Date(until).toISOString());
    logger.warn('Seller API held: rate limited', { connector: this.connector, retryAfterMs });
  }
}
