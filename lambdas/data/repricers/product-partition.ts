import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { TargetExplanation } from '../../domain/explanation.js';
import { DEFAULT_PRICE_STEP, type Decision, type EngineContext, type EngineOffer } from '../../domain/repricing.js';
import {
  BUYBOX_APPROACHES,
  REPRICER_APPROACHES,
  competitorFilterFields,
  NO_COMPETITOR_FILTERS,
  priceStep,
  priceWarGuard,
  type PriceChange,
  type Product,
} from '../../domain/records.js';
import { mapLimit } from '../table/concurrency.js';
import { reserveTimedIds } from '../table/counters.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { readPartition } from '../table/partition.js';
import { connectorKey, part, priceChangeFeedKey, priceChangePartition, productPartition } from '../table/keys.js';
import { storedOffer, type StoredOffer } from '../offers/list.js';
import { canonicalPriceChange, PRICE_CHANGE_SCHEMA_VERSION, storedPriceChange, type StoredPriceChange } from '../price-changes/list.js';
import type { MarketState } from '../../domain/market-state.js';
import { DEFAULT_IN_STOCK_PREMIUM, type InStockPremium } from '../../domain/in-stock-premium.js';
import { parseMarketState } from '../market/market-state.js';
import { storedProduct } from '../offers/products.js';
import { warStatesOf } from '../price-changes/price-wars.js';
import type { WarState } from '../../domain/price-war.js';
import { isConditionFailure } from '../table/conditions.js';
import { now } from '../../config/clock.js';

/**
 * What the repricing evaluator reads and writes. Everything a product's repricers need is in
 * the product's partition, read with one consistent Query: the product, its offers (own and
 * other sellers'), its repricer slots (with each repricer's bounds and competitor filters) and
 * the last decision of each repricer for each offer. A decision writes the price change (in the product's price
 * change partition), under a key made of the repricer, the offer and the decision's number,
 * then the decision state: an evaluation run again after a failure in between writes the same
 * price change again, not a second one.
 */

export const repricerSlot = z.object({
  repricerId: z.int().positive(),
  enabled: z.boolean(),
  connector: z.string(),
  min_price: z.number(),
  preferred_price: z.number(),
  // A slot written before the approaches existed decides as it did: `cheapest`.
  buybox_approach: z.enum(BUYBOX_APPROACHES).default('cheapest'),
  // Its bounds are stored computed; the approach only names where they came from (the explanation says it).
  repricer_approach: z.enum(REPRICER_APPROACHES).default('fixed'),
  // A slot written before competitor filters existed has none: it filters nothing, as it did.
  exclude_seller_ids: competitorFilterFields.exclude_seller_ids.default(() => []),
  min_competitor_rating: competitorFilterFields.min_competitor_rating.default(NO_COMPETITOR_FILTERS.min_competitor_rating),
  competitor_stock: competitorFilterFields.competitor_stock.default(NO_COMPETITOR_FILTERS.competitor_stock),
  max_competitor_leadtime_days: competitorFilterFields.max_competitor_leadtime_days.default(NO_COMPETITOR_FILTERS.max_competitor_leadtime_days),
  // A slot written before the price-war guard existed has none: it never holds, as before.
  price_war_guard: priceWarGuard.nullable().default(null),
});
export type RepricerSlot = z.infer<typeof repricerSlot>;

const decisionState = z.object({
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

export interface ProductForRepricing {
  readonly product: Product;
  /** The variant of its product line the product is (market sync), where the marketplace said. */
  readonly variantId?: string;
  readonly offers: StoredOffer[];
  readonly slots: RepricerSlot[];
  readonly decisions: Map<string, DecisionState>;
  /** The market view per connector, where the storefront reader has recorded one. */
  readonly markets: Map<string, MarketState>;
  /** The price-war guard's state per repricer and own offer (`warStateId`), where a guard has kept one. */
  readonly wars: Map<string, WarState>;
  /**
   * The in-stock premium per connector, where a storefront page has narrowed it; absent:
   * DEFAULT_IN_STOCK_PREMIUM (premiumOn).
   */
  readonly premiums: Map<string, InStockPremium>;
}

/** The product's in-stock premium on a connector: as learned, else the stated default. */
export const premiumOn = (product: Pick<ProductForRepricing, 'premiums'>, connector: string): InStockPremium =>
  product.premiums.get(connector) ?? DEFAULT_IN_STOCK_PREMIUM;

const DECISION_SK = 'DECISION#';
const decisionKey = (clientId: string, code: string, repricerId: number, offerId: string) => ({
  pk: productPartition(clientId, code),
  sk: `${DECISION_SK}${repricerId}#${part(offerId)}`,
});
export const decisionId = (repricerId: number, offerId: string) => `${repricerId}#${offerId}`;

export const PRICE_CHANGE_SK_PREFIX = 'PC#';
/** The price change a repricer's n-th decision for an offer writes: the same key however often it is written. */
export const priceChangeKey = (clientId: string, code: string, repricerId: number, offerId: string, n: number) => ({
  pk: priceChangePartition(clientId, code),
  sk: `${PRICE_CHANGE_SK_PREFIX}${repricerId}#${part(offerId)}#${String(n).padStart(8, '0')}`,
});

/** Which decision of its repricer for its offer a price change records (the n of priceChangeKey), from its sort key. */
export const decisionNumberOf = (sk: string): number | undefined => {
  const digits = /#(\d{8})$/.exec(sk)?.[1];
  return digits === undefined ? undefined : Number(digits);
};

export const readProductForRepricing = async (clientId: string, code: string): Promise<ProductForRepricing | undefined> => {
  const items = await readPartition(productPartition(clientId, code), { capacity: true });
  const productItem = items.find((item) => item.entity === 'product');
  if (!productItem) return undefined;
  const stored = items.flatMap((item) => (item.entity === 'productMarket' ? [parseMarketState(item)] : [])).flatMap((m) => (m ? [m] : []));
  const decisions = new Map<string, DecisionState>();
  for (const item of items.filter((i) => i.entity === 'repricerDecision')) {
    const state = decisionState.parse(item);
    decisions.set(decisionId(state.repricerId, state.offerId), state);
  }
  const head = storedProduct.parse(productItem);
  return {
    product: head.record,
    ...(head.variantId === undefined ? {} : { variantId: head.variantId }),
    offers: items.filter((item) => item.entity === 'offer').map((item) => storedOffer.parse(item)),
    slots: items.filter((item) => item.entity === 'repricerSlot').map((item) => repricerSlot.parse(item)),
    decisions,
    markets: new Map(stored.map((m) => [m.connector, m.market] as const)),
    premiums: new Map(stored.flatMap((m) => (m.premium ? [[m.connector, m.premium] as const] : []))),
    wars: warStatesOf(items),
  };
};

/**
 * What the engine knows of the product on a connector beyond its offers: the evaluator, the
 * preview and the sender's check share it. The in-stock premium is the one the storefront reader
 * learned, or the stated default (premiumOn). The rrp (the product's `retail_price`, which the
 * own-offer sync keeps equal to the marketplace's) binds where prices are sent: on a connector
 * with a connection (`connected`, as the sender's always is); the offers of a client's imports
 * alone are priced as stated.
 */
export const engineContextOf = (product: ProductForRepricing | undefined, connector: string, connected = true): EngineContext => {
  if (!product) return {};
  const rrp = product.product.retail_price;
  return { premium: premiumOn(product, connector), ...(connected && rrp > 0 ? { rrp } : {}) };
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

/** The price the marketplace has for an own offer now, as the service believes it (believedOwnPrice). */
export const ownPriceNow = (product: Pick<ProductForRepricing, 'decisions'>, offer: StoredOffer): number =>
  believedOwnPrice(product.decisions.values(), offer).price;

/** The decision states of a product's repricers (every offer), read consistently: what an own-offer sync weighs a price it sees against. */
export const readDecisionStates = async (clientId: string, code: string): Promise<DecisionState[]> =>
  (await readPartition(productPartition(clientId, code), { prefix: DECISION_SK })).flatMap((item) => {
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
          Key: decisionKey(clientId, code, state.repricerId, state.offerId),
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

/** The product's offers as the engine reads them (an own offer at its price now): the evaluator, the sender and the preview share this view. */
export const engineOffersOf = (product: ProductForRepricing): EngineOffer[] =>
  product.offers.map((offer) => ({
    offer_id: offer.fields.offer_id,
    offer_price: offer.scope === 'own' ? ownPriceNow(product, offer) : offer.fields.offer_price,
    offer_status: offer.fields.offer_status,
    connector: offer.connector,
    own: offer.scope === 'own',
    seller_id: offer.fields.seller_id,
    rating_avg: offer.fields.rating_avg,
    stock_status: offer.fields.stock_status,
  }));

const stepCache = new Map<string, { step: number; at: number }>();
const STEP_CACHE_MS = 60_000;

/** A connector type's price increment (an operator setting of the connector type; 1.00 when unset). */
export const priceStepOf = async (connector: string): Promise<number> => {
  const cached = stepCache.get(connector);
  if (cached && now() - cached.at < STEP_CACHE_MS) return cached.step;
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: connectorKey(connector) }));
  const stored = priceStep.safeParse(result.Item?.priceStep);
  const step = stored.success ? stored.data : DEFAULT_PRICE_STEP;
  stepCache.set(connector, { step, at: now() });
  return step;
};

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
          Key: decisionKey(clientId, code, decision.repricerId, decision.offerId),
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
        Key: decisionKey(clientId, change.product_code, change.repricer_id, change.offer_id),
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
        Key: decisionKey(clientId, change.product_code, change.repricer_id, change.offer_id),
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
