import type { StoredConnection } from '../../data/connections/connections.js';
import { holdSellerApi, sellerApiHeldUntil } from '../../data/connections/seller-api-hold.js';
import { logger } from '../../observability/logger.js';
import { MarketplaceRateLimited } from '../../marketplace/port.js';

/**
 * The sync worker's side of the connection's one seller-API hold (data/connections/seller-api-hold.ts),
 * which the price sender keeps too: while it is in force the worker calls no seller API (this
 * tick's own-offer sync, an event's offer read are skipped, not failed: the next tick after it
 * does them), and a 429 its retries did not wait out sets it for every worker of the connection.
 */
export const sellerApiHeld = (stored: StoredConnection, what: string, nowMs: number): boolean => {
  const until = sellerApiHeldUntil(stored, nowMs);
  if (until === undefined) return false;
  logger.info(`${what} skipped: the seller API is on hold after a rate limit`, { connector: stored.record.connector, uid: stored.record.uid, until });
  return true;
};

/** After a seller-API fault: a 429 holds the connection's seller-API calls for its Retry-After. */
export const holdAfterRateLimit = async (clientId: string, stored: StoredConnection, error: unknown, nowMs: number): Promise<void> => {
  if (!(error instanceof MarketplaceRateLimited)) return;
  await holdSellerApi(clientId, stored.record.connector, new Date(nowMs + error.retryAfterMs).toISOString());
};
