import type { ConnectionMode } from '../../domain/connections.js';
import { getConnection } from './connections.js';
import { now as clockNow } from '../../config/clock.js';

/**
 * A connection's mode as the repricing evaluator needs it, cached for a few seconds per
 * connection: one read per connection and burst, not one per product. A mode set a moment ago
 * may still record a decision the old way; the sender reads the mode afresh before every send,
 * so a decision recorded `pending` just after `suggest` was set is never sent (it becomes
 * `suggested` there).
 */
const MODE_CACHE_MS = 5_000;
const cache = new Map<string, { readonly mode: ConnectionMode | undefined; readonly at: number }>();

export const connectionModeOf = async (clientId: string, connector: string, now = clockNow()): Promise<ConnectionMode | undefined> => {
  const key = `${clientId}#${connector}`;
  const cached = cache.get(key);
  if (cached && now - cached.at < MODE_CACHE_MS) return cached.mode;
  const stored = await getConnection(clientId, connector);
  const mode = stored?.record.mode;
  cache.set(key, { mode, at: now });
  // Bounded: a warm function serving many tenants forgets the oldest first.
  if (cache.size > 10_000) cache.delete(cache.keys().next().value as string);
  return mode;
};

/** Tests that change a mode and decide at once. */
export const forgetConnectionModes = (): void => cache.clear();
