import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { applyRepricerPatch } from '../../domain/update-repricer.js';
import { mapLimit } from '../table/concurrency.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { productPartition, SLOT_SK_PREFIX } from '../table/keys.js';
import { getProduct } from '../offers/products.js';
import { updateRepricer } from './write.js';
import { nowIso } from '../../config/clock.js';

/**
 * A `cost_based` repricer's floor and ceiling follow its product (docs/repricing.md, "Cost-based
 * bounds"): they are the prices that leave its profits after the fees of the offer's current
 * stock mode, so when a product's stock on hand crosses 0 or its fee estimates change (an
 * import, a market sync), its cost_based repricers are priced again from the product as it is
 * now. The list maintainer calls this for every product the change stream says was written;
 * the rewritten slot then asks the evaluator to decide again with the new bounds.
 */
const costBasedSlot = z.object({ repricerId: z.int().positive(), repricer_approach: z.string().optional() });

class Unchanged extends Error {}

const costBasedRepricerIds = async (clientId: string, code: string): Promise<number[]> => {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :slot)',
      ExpressionAttributeValues: { ':pk': productPartition(clientId, code), ':slot': SLOT_SK_PREFIX },
      ConsistentRead: true,
    }),
  );
  // At most one slot per connector: a product has few, so one page holds them.
  return (result.Items ?? []).map((item) => costBasedSlot.parse(item)).flatMap((slot) => (slot.repricer_approach === 'cost_based' ? [slot.repricerId] : []));
};

/** Prices one repricer again from the product; false when its bounds did not move (nothing is written). */
const repriceBounds = async (clientId: string, id: number, now: string): Promise<boolean> => {
  const outcome = await updateRepricer(clientId, id, async (current) => {
    const product = await getProduct(clientId, current.record.product.code);
    if (!product || current.record.repricer_approach !== 'cost_based') throw new Unchanged();
    const next = applyRepricerPatch(current.record, {}, product, now);
    // Fees that leave no price for these costs: the repricer keeps its last bounds (its PATCH would be refused the same way).
    if (!next.ok) throw new Unchanged();
    const before = current.record;
    const after = next.record;
    const moved =
      after.min_price !== before.min_price || after.preferred_price !== before.preferred_price || after.fixed_fulfilment_fee !== before.fixed_fulfilment_fee;
    if (!moved) throw new Unchanged();
    return after;
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
