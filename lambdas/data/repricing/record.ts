import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TargetExplanation } from '../../domain/explanation.js';
import type { Decision } from '../../domain/repricing.js';
import type { PriceChange } from '../../domain/records.js';
import { mapLimit } from '../table/concurrency.js';
import { isConditionFailure } from '../table/conditions.js';
import { reserveTimedIds } from '../table/counters.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { decisionStateKey, priceChangeFeedKey, priceChangeKey } from '../table/keys.js';
import { canonicalPriceChange, PRICE_CHANGE_SCHEMA_VERSION, storedPriceChange, type StoredPriceChange } from '../price-changes/list.js';
import { decisionId } from './decision-states.js';
import type { ProductForRepricing } from './inputs.js';

/**
 * A decision writes the price change (in the product's price change partition), under a key
 * made of the repricer, the offer and the decision's number, then the decision state: an
 * evaluation run again after a failure in between writes the same price change again, not a
 * second one.
 */
export interface RepricerDecision extends Decision {
  readonly repricerId: number;
  readonly connector: string;
  /** `pending` when its connection is live (the sender takes it), else `suggested` (the client applies it). */
  readonly status: 'pending' | 'suggested';
  /** The engine's explanation of the target, stored with the price change. */
  readonly explanation: TargetExplanation;
}

/** Decisions recorded without their state before a replay, at most: a bound, not an expectation. */
const MAX_UNSTATED_DECISIONS = 20;

/**
 * Records decisions of one product: ids and a creation time for all of them, then each price
 * change (written only if its key is new) followed by its decision state.
 *
 * The n-th decision for an offer has one key, so an evaluation run again after a failure
 * between the two writes finds its price change written and writes only the missing state.
 * When the price change found there decided another price (the inputs moved before the
 * replay), it is kept as the earlier decision and this one is recorded as the next.
 */
export const recordDecisions = async (
  clientId: string,
  product: ProductForRepricing,
  decisions: readonly RepricerDecision[],
  retentionDays: number,
): Promise<PriceChange[]> => {
  if (decisions.length === 0) return [];
  const { first, at } = await reserveTimedIds('priceChange', decisions.length);
  const expiresAt = Math.floor(Date.parse(at) / 1000) + retentionDays * 86_400;
  const code = product.product.code;
  return mapLimit(
    decisions.map((decision, i) => ({ decision, id: first + i })),
    async ({ decision, id }) => {
      const previous = product.decisions.get(decisionId(decision.repricerId, decision.offerId));
      const record: PriceChange = {
        id,
        uid: crypto.randomUUID(),
        repricer_id: decision.repricerId,
        offer_id: decision.offerId,
        product_code: code,
        connector: decision.connector,
        old_price: decision.oldPrice,
        new_price: decision.price,
        reason: decision.reason,
        lowest_competitor_price: decision.lowest?.price ?? null,
        competitor_offer_id: decision.lowest?.offerId ?? null,
        status: decision.status,
        status_reason: null,
        sent_price: null,
        sent_at: null,
        applied_at: null,
        explanation: decision.explanation,
        created_at: at,
        updated_at: at,
      };
      const stored: StoredPriceChange = { entity: 'priceChange', sv: PRICE_CHANGE_SCHEMA_VERSION, record };
      let n = (previous?.decisions ?? 0) + 1;
      let written: PriceChange | undefined;
      for (let attempt = 1; ; attempt++, n++) {
        const key = priceChangeKey(clientId, code, decision.repricerId, decision.offerId, n);
        try {
          await documentClient.send(
            new PutCommand({
              TableName: tableName(),
              Item: { ...key, ...canonicalPriceChange(stored), ...priceChangeFeedKey(clientId, at, code, key.sk), expiresAt },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          );
          written = record;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          // Written by an earlier run of this evaluation: that one is the price change, if it decided this price.
          const existing = await documentClient.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
          const found = existing.Item ? storedPriceChange.parse(existing.Item).record : undefined;
          if (found?.new_price === decision.price) written = found;
        }
        if (written) break;
        if (attempt === MAX_UNSTATED_DECISIONS) {
          throw new Error(`Price changes ${n - attempt + 1}-${n} of repricer ${decision.repricerId} for offer ${decision.offerId} have no decision state`);
        }
      }
      await documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: decisionStateKey(clientId, code, decision.repricerId, decision.offerId),
          UpdateExpression: 'SET entity = :entity, repricerId = :repricer, offerId = :offer, decisions = :n, lastPrice = :price, lastStatus = :status',
          ExpressionAttributeValues: {
            ':entity': 'repricerDecision',
            ':repricer': decision.repricerId,
            ':offer': decision.offerId,
            ':n': n,
            ':price': decision.price,
            ':status': decision.status,
          },
        }),
      );
      return written;
    },
  );
};
