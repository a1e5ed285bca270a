import { READ_PLANNER, type ReadPlannerSettings } from '../config/read-planner.js';
import { listConnections } from '../data/connections/connections.js';
import { getStoredProducts } from '../data/offers/products.js';
import { unwatchPage, watchPage } from '../data/market/page-watches.js';
import { getProductWatches, putProductWatch, type WatchedPage } from '../data/market/product-watches.js';
import { readProductForRepricing } from '../data/repricing/inputs.js';
import { now } from '../config/clock.js';

/**
 * Keeps the page watches in line with a tenant's products (docs/market-loop.md): a product with a
 * product line id watches its page on each of the tenant's connections, marked repriced where an
 * enabled repricer of that connector prices it. Run by the list maintainer for the products and
 * repricer slots that changed, and by a full own-offer sync for every product (a new connection's
 * products, or a requested sync). Writes only the difference from what the product registered
 * last, so a run that finds nothing new writes nothing.
 */
const samePage = (a: WatchedPage, b: WatchedPage) => a.connector === b.connector && a.productLineId === b.productLineId;

export const refreshProductWatches = async (
  clientId: string,
  codes: readonly string[],
  nowMs: number = now(),
  settings: ReadPlannerSettings = READ_PLANNER,
): Promise<{ readonly changed: number; readonly pages: ReadonlyMap<string, readonly WatchedPage[]> }> => {
  const distinct = [...new Set(codes)];
  if (distinct.length === 0) return { changed: 0, pages: new Map() };
  const [connections, products, registered] = await Promise.all([
    listConnections(clientId),
    getStoredProducts(clientId, distinct),
    getProductWatches(clientId, distinct),
  ]);
  const connectors = connections.map((connection) => connection.record.connector);
  let changed = 0;
  const pages = new Map<string, readonly WatchedPage[]>();
  for (const code of distinct) {
    const line = products.get(code)?.productLineId;
    const slots = line !== undefined && connectors.length > 0 ? ((await readProductForRepricing(clientId, code))?.slots ?? []) : [];
    const wanted: WatchedPage[] =
      line === undefined
        ? []
        : connectors.map((connector) => ({ connector, productLineId: line, repriced: slots.some((slot) => slot.enabled && slot.connector === connector) }));
    pages.set(code, wanted);
    const before = registered.get(code) ?? [];
    const gone = before.filter((page) => !wanted.some((want) => samePage(page, want)));
    const moved = wanted.filter((want) => !before.some((page) => samePage(page, want) && page.repriced === want.repriced));
    // A product never registered is registered even without a page, so a full sync knows it has been looked at.
    if (gone.length === 0 && moved.length === 0 && registered.has(code)) continue;
    for (const page of gone) await unwatchPage(page, { clientId, code });
    for (const page of moved) await watchPage(page, { clientId, code, repriced: page.repriced }, nowMs, settings);
    await putProductWatch(clientId, code, wanted);
    changed++;
  }
  return { changed, pages };
};
