import type { ReadPlannerSettings } from '../config/read-planner.js';
import { listProductCodes } from '../data/market/market-watch.js';
import { bringPageForward } from '../data/market/page-watches.js';
import { getProductWatches } from '../data/market/product-watches.js';
import { refreshProductWatches } from './watch-products.js';

/**
 * After a connection's full own-offer sync (its first, or one the client asked for): every
 * product of the tenant watches its page on this connection (a product the change stream never
 * registered, such as one imported before the connection existed, is registered now), and each
 * page's next look is brought forward. The looks are spaced to use at most `syncForwardShare`
 * of the budget, so a catalogue of any size synced on request leaves the rest to the other
 * tenants; each still counts against its tenant's fair share in the planner.
 */
const CHUNK = 100;

export const forwardAfterFullSync = async (
  clientId: string,
  connector: string,
  nowMs: number,
  settings: ReadPlannerSettings,
): Promise<{ readonly forwarded: number }> => {
  const codes = await listProductCodes(clientId);
  const spacingMs = 1000 / Math.max(0.001, settings.readsPerSecond * settings.syncForwardShare);
  let forwarded = 0;
  for (let n = 0; n < codes.length; n += CHUNK) {
    const chunk = codes.slice(n, n + CHUNK);
    const registered = await getProductWatches(clientId, chunk);
    const unregistered = chunk.filter((code) => {
      const pages = registered.get(code);
      return pages === undefined || (pages.length > 0 && !pages.some((page) => page.connector === connector));
    });
    const refreshed = (await refreshProductWatches(clientId, unregistered, nowMs, settings)).pages;
    for (const code of chunk) {
      for (const page of refreshed.get(code) ?? registered.get(code) ?? []) {
        if (page.connector !== connector) continue;
        await bringPageForward(connector, page.productLineId, { reason: 'sync', clientId, atMs: nowMs + Math.floor(forwarded * spacingMs) }, settings);
        forwarded++;
      }
    }
  }
  return { forwarded };
};
