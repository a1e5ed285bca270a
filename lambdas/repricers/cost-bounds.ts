import { repricedCostBounds } from '../domain/update-repricer.js';
import { getProduct } from '../data/offers/products.js';
import { costBasedRepricerIds } from '../data/repricers/cost-floors.js';
import { updateRepricer } from '../data/repricers/write.js';
import { mapLimit } from '../data/table/concurrency.js';
import { nowIso } from '../config/clock.js';

/**
 * A `cost_based` repricer's floor and ceiling follow its product (docs/repricing.md, "Cost-based
 * bounds"): they are the prices that leave its profits after the fees of the offer's current
 * stock mode, so when a product's stock on hand crosses 0 or its fee estimates change (an
 * import, a market sync), its cost_based repricers are priced again from the product as it is
 * now (domain/update-repricer.ts repricedCostBounds decides). The list maintainer calls this for
 * every product the change stream says was written; the rewritten slot then asks the evaluator
 * to decide again with the new bounds.
 */
class Unchanged extends Error {}

/** Prices one repricer again from the product; false when its bounds did not move (nothing is written). */
const repriceBounds = async (clientId: string, id: number, now: string): Promise<boolean> => {
  const outcome = await updateRepricer(clientId, id, async (current) => {
    const next = repricedCostBounds(current.record, await getProduct(clientId, current.record.product.code), now);
    if (!next) throw new Unchanged();
    return next;
  }).catch((error: unknown) => {
    if (error instanceof Unchanged) return { kind: 'missing' as const };
    throw error;
  });
  return outcome.kind === 'done';
};

/** Reprices the cost_based repricers of these products whose bounds moved; returns how many were rewritten. */
export const repriceCostBasedBounds = async (clientId: string, codes: readonly string[], now = nowIso()): Promise<number> => {
  const ids = (await mapLimit([...new Set(codes)], (code) => costBasedRepricerIds(clientId, code), 8)).flat();
  const rewritten = await mapLimit(ids, (id) => repriceBounds(clientId, id, now), 8);
  return rewritten.filter(Boolean).length;
};
