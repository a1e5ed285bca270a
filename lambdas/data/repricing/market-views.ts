import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { MARKET_TIMING } from '../../config/market-sync.js';
import { inStockPremium, type InStockPremium } from '../../domain/in-stock-premium.js';
import { marketState, marketVerdict, type MarketState, type MarketVerdict } from '../../domain/market-state.js';
import { connectionModeOf } from '../connections/mode.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { MARKET_SK_PREFIX, marketStateKey, productPartition } from '../table/keys.js';
import { now } from '../../config/clock.js';

/**
 * A product's market view on one connector, as the storefront reader records it (its only
 * writer). The item sits in the product's partition, so the evaluator reads it with the offers;
 * its writes reach the evaluator through the stream, so a recorded read lets the product's
 * repricers decide again. It also holds the product's in-stock premium as learned on the
 * connector (domain/in-stock-premium.ts), absent until a page first narrowed it: written with the
 * market when both change, alone when only it does, so learning costs no write of its own.
 */
export const storedMarketState = z.object({
  entity: z.literal('productMarket'),
  connector: z.string().min(1),
  market: marketState,
  premium: inStockPremium.optional(),
});

export interface StoredMarket {
  readonly connector: string;
  readonly market: MarketState;
  readonly premium: InStockPremium | undefined;
}

export const parseMarketState = (item: Record<string, unknown>): StoredMarket | undefined => {
  const parsed = storedMarketState.safeParse(item);
  return parsed.success ? { connector: parsed.data.connector, market: parsed.data.market, premium: parsed.data.premium } : undefined;
};

export const readMarketState = async (clientId: string, code: string, connector: string): Promise<MarketState | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: marketStateKey(clientId, code, connector), ConsistentRead: true }));
  return result.Item ? parseMarketState(result.Item)?.market : undefined;
};

/** The product's learned premiums by connector: its market state items alone (one per connector the reader has read it on). */
export const readPremiums = async (clientId: string, code: string): Promise<Map<string, InStockPremium>> => {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': productPartition(clientId, code), ':prefix': MARKET_SK_PREFIX },
    }),
  );
  const stored = (result.Items ?? []).flatMap((item) => parseMarketState(item) ?? []);
  return new Map(stored.flatMap((entry) => (entry.premium ? [[entry.connector, entry.premium] as const] : [])));
};

/**
 * Sets what changed, leaving the rest of the item as it is: a read that saw nothing keeps the
 * premium learned so far. The premium alone is written only onto an item that has its market.
 */
export const writeMarketState = async (
  clientId: string,
  code: string,
  connector: string,
  change: { readonly market?: MarketState | undefined; readonly premium?: InStockPremium | undefined },
): Promise<void> => {
  const values: Record<string, unknown> = { ':entity': 'productMarket', ':connector': connector };
  const sets = ['entity = :entity', 'connector = :connector'];
  if (change.market) {
    sets.push('market = :market');
    values[':market'] = change.market;
  }
  if (change.premium) {
    sets.push('premium = :premium');
    values[':premium'] = change.premium;
  }
  if (sets.length === 2) return;
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: marketStateKey(clientId, code, connector),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ExpressionAttributeValues: values,
    }),
  );
};

/**
 * The verdict a repricer of `connector` decides under (domain/market-state.ts), as the evaluator
 * applies it: undefined when no connection watches the connector (the offers the client
 * imported are then the market).
 */
export const marketVerdictFor = async (
  clientId: string,
  connector: string,
  market: MarketState | undefined,
  nowMs = now(),
): Promise<MarketVerdict | undefined> =>
  (await connectionModeOf(clientId, connector)) === undefined ? undefined : marketVerdict(market, nowMs, MARKET_TIMING);
