import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { mapLimit } from '../table/concurrency.js';
import { isConditionFailure } from '../table/conditions.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { readPartition } from '../table/partition.js';
import { DECISION_SK_PREFIX, decisionStateKey, productPartition } from '../table/keys.js';
import type { StoredOffer } from '../offers/list.js';

/**
 * The last decision of one repricer for one offer, in the product's partition: what the
 * evaluator does not decide again, what the sender notes a confirmed price on, and what a sync
 * that sees another price ends (docs/price-sending.md).
 */
export const decisionState = z.object({
  repricerId: z.int(),
  offerId: z.string(),
  decisions: z.int().min(0),
  /**
   * The price of the last decision, which the evaluator does not decide again; absent once the
   * sender forgot it (the decision ended without reaching the marketplace for a reason of the
   * connection: `forgetDecision`), so the same target is decided again.
   */
  lastPrice: z.number().optional(),
  /** How the last decision was recorded: a suggestion (suggest mode) does not stand for a decision the sender takes. */
  lastStatus: z.enum(['pending', 'suggested']).optional(),
  /**
   * The last price the marketplace confirmed for the offer from this repricer's decisions, and
   * when (the price sender's): the offer's price until a sync writes a newer one.
   */
  confirmedPrice: z.number().optional(),
  confirmedAt: z.string().optional(),
});
export type DecisionState = z.infer<typeof decisionState>;

export const decisionId = (repricerId: number, offerId: string) => `${repricerId}#${offerId}`;

/** Which decision of its repricer for its offer a price change records (the n of priceChangeKey), from its sort key. */
export const decisionNumberOf = (sk: string): number | undefined => {
  const digits = /#(\d{8})$/.exec(sk)?.[1];
  return digits === undefined ? undefined : Number(digits);
};

/**
 * The price the service believes the marketplace has for an own offer, and since when: the latest
 * price the marketplace confirmed from any of the offer's decisions, unless a sync (or a page
 * that showed another price) saw the offer's price after that confirmation; else the price as
 * synced. Measured from the price's own time (`price_at`), not the item's: a storefront read
 * rewrites the offer (its buy box) without seeing its price, and a sync's look taken before a
 * push landed is no newer for being written after it.
 */
export const believedOwnPrice = (decisions: Iterable<DecisionState>, offer: StoredOffer): { readonly price: number; readonly at: string } => {
  let price = offer.fields.offer_price;
  let at = offer.price_at ?? offer.updated_at;
  for (const state of decisions) {
    if (state.offerId !== offer.fields.offer_id || state.confirmedPrice === undefined || state.confirmedAt === undefined) continue;
    if (state.confirmedAt > at) [price, at] = [state.confirmedPrice, state.confirmedAt];
  }
  return { price, at };
};

/** The decision states of a product's repricers (every offer), read consistently: what an own-offer sync weighs a price it sees against. */
export const readDecisionStates = async (clientId: string, code: string): Promise<DecisionState[]> =>
  (await readPartition(productPartition(clientId, code), { prefix: DECISION_SK_PREFIX })).flatMap((item) => {
    const state = decisionState.safeParse(item);
    return state.success ? [state.data] : [];
  });

/**
 * Ends what the service believed of an own offer's price once the marketplace showed another
 * (a sync or a page that looked at `at`; docs/price-sending.md, "Decided again"): every
 * confirmation noted before that look is removed, and a last decision whose price was the one
 * believed live (`contradicted`) is forgotten, so the evaluator decides that target again. Each
 * state only while it is as read (its decision, its confirmation): a later decision or
 * confirmation is never undone for an earlier look. The offer's own write, after this, wakes the
 * evaluator.
 */
export const endPriceBeliefs = async (clientId: string, code: string, states: readonly DecisionState[], contradicted: number, at: string): Promise<void> => {
  await mapLimit(states, async (state) => {
    const confirmation = state.confirmedAt !== undefined && state.confirmedAt < at;
    const believed = state.lastPrice === contradicted;
    if (!confirmation && !believed) return;
    const removed = [...(confirmation ? ['confirmedPrice', 'confirmedAt'] : []), ...(believed ? ['lastPrice', 'lastStatus'] : [])];
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: decisionStateKey(clientId, code, state.repricerId, state.offerId),
          UpdateExpression: `REMOVE ${removed.join(', ')}`,
          ConditionExpression: confirmation ? 'decisions = :n AND confirmedAt = :at' : 'decisions = :n',
          ExpressionAttributeValues: { ':n': state.decisions, ...(confirmation ? { ':at': state.confirmedAt } : {}) },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  });
};

/**
 * Notes a price the marketplace confirmed for an offer on its decision state (beside what the
 * evaluator keeps there): the sender's next push for the offer starts from it until a sync has
 * written the offer's price anew.
 */
export const noteConfirmedPrice = async (
  clientId: string,
  change: { readonly product_code: string; readonly repricer_id: number; readonly offer_id: string },
  price: number,
  at: string,
) => {
  await documentClient
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: decisionStateKey(clientId, change.product_code, change.repricer_id, change.offer_id),
        UpdateExpression: 'SET confirmedPrice = :price, confirmedAt = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':price': price, ':at': at },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
};

/**
 * Forgets a decision that ended without reaching the marketplace for a reason of the connection
 * (the kill switch, a delete, faults for 24 hours, the repricer disabled): the evaluator decides
 * that target again on its next run for the product, with the status the connection's mode
 * gives then. Only while the decision state still names that decision (`decisions` is its n):
 * a later decision is never forgotten for an earlier one's end. True when it was forgotten.
 */
export const forgetDecision = async (
  clientId: string,
  change: { readonly product_code: string; readonly repricer_id: number; readonly offer_id: string },
  sk: string,
): Promise<boolean> => {
  const n = decisionNumberOf(sk);
  if (n === undefined) return false;
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: decisionStateKey(clientId, change.product_code, change.repricer_id, change.offer_id),
        UpdateExpression: 'REMOVE lastPrice, lastStatus',
        ConditionExpression: 'decisions = :n',
        ExpressionAttributeValues: { ':n': n },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};
