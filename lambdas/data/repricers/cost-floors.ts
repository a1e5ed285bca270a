import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient, tableName } from '../table/dynamo.js';
import { productPartition, SLOT_SK_PREFIX } from '../table/keys.js';

/**
 * The `cost_based` repricers of a product, from its repricer slots: the ones whose floor and
 * ceiling follow the product (docs/repricing.md, "Cost-based bounds"; lambdas/repricers/cost-bounds.ts
 * prices them again).
 */
const costBasedSlot = z.object({ repricerId: z.int().positive(), repricer_approach: z.string().optional() });

export const costBasedRepricerIds = async (clientId: string, code: string): Promise<number[]> => {
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
