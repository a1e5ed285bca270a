import { getConnection, type StoredConnection } from '../../data/connections/connections.js';
import { pushesStopped } from '../../data/connections/push-stop.js';
import { sellerApiHeldUntil } from '../../data/connections/seller-api-hold.js';
import type { Marketplace } from '../../marketplace/marketplace.js';
import type { MarketplacePort } from '../../marketplace/port.js';
import { marketplaceFor } from '../../marketplace/registry.js';
import { openConnectionSecret } from '../../marketplace/secrets.js';

/**
 * The gate: whether a connection may send now, read afresh (a consistent read) at the start of every run
 * and again just before every push: the kill switch (`suggest`, a delete) and a pause take
 * effect on the next push, whatever was queued.
 */
export type Gate =
  /** Deleted: nothing more is sent; what waits is `failed`. */
  | { readonly kind: 'gone' }
  /** Sending waits (pending changes stay pending): paused, key refused, or the seller API held by a long rate limit. */
  | { readonly kind: 'closed'; readonly stored: StoredConnection; readonly why: string }
  | { readonly kind: 'open'; readonly stored: StoredConnection; readonly port: MarketplacePort; readonly marketplace: Marketplace; readonly apiKey: string };

export const readGate = async (clientId: string, connector: string, nowMs: number): Promise<Gate> => {
  const stored = await getConnection(clientId, connector);
  if (!stored) return { kind: 'gone' };
  if (await pushesStopped()) return { kind: 'closed', stored, why: 'pushes stopped by the operator' };
  const { status } = stored.record;
  if (status === 'paused') return { kind: 'closed', stored, why: 'paused' };
  if (status === 'unauthorized') return { kind: 'closed', stored, why: 'unauthorized' };
  // The connection's one seller-API hold, which the sync worker's 429s set too.
  if (sellerApiHeldUntil(stored, nowMs) !== undefined) return { kind: 'closed', stored, why: 'rate limited' };
  const lookup = marketplaceFor(connector);
  if (lookup.kind !== 'adapter') return { kind: 'closed', stored, why: `no marketplace for ${connector} on this stage` };
  const apiKey = await openConnectionSecret('marketplace-key', clientId, connector, stored.sealedKey);
  return { kind: 'open', stored, port: lookup.port, marketplace: lookup.marketplace, apiKey };
};

/** Whether a change may go out through this gate: a live connection sends its decisions; suggest mode only what the client applied. */
export const mayPush = (gate: Extract<Gate, { kind: 'open' }>, requested: boolean): boolean => gate.stored.record.mode === 'live' || requested;
export type OpenGate = Extract<Gate, { kind: 'open' }>;
