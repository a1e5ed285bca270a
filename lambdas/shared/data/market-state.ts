import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { MARKET_TIMING } from '../config/market-sync.js';
import { marketState, marketVerdict, type MarketState, type MarketVerdict } from '../domain/market-state.js';
import { connectionModeOf } from './connection-mode.js';
import { documentClient, tableName } from './dynamo.js';
import { marketStateKey } from './keys.js';

/**
 * A product's market view on one connector, as the storefront reader records it (its only
 * writer). The item sits in the product's partition, so the evaluator reads it with the offers;
 * its writes reach the evaluator through the stream, so a recorded read lets the product's
 * repricers decide again.
 */
export const storedMarketState = z.object({ entity: z.literal('productMarket'), connector: z.string().min(1), market: marketState });

export const parseMarketState = (item: Record<string, unknown>): { connector: string; market: MarketState } | undefined => {
  const parsed = storedMarketState.safeParse(item);
  return parsed.success ? { connector: parsed.data.connector, market: parsed.data.market } : undefined;
};

export const readMarketState = async (clientId: string, code: string, connector: string): Promise<MarketState | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: marketStateKey(clientId, code, connector), ConsistentRead: true }));
  return result.Item ? parseMarketState(result.Item)?.market : undefined;
};

export const writeMarketState = async (clientId: string, code: string, connector: string, market: MarketState): Promise<void> => {
  await documentClient.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...marketStateKey(clientId, code, connector), entity: 'productMarket', connector, market },
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
  nowMs = Date.now(),
): Promise<MarketVerdict | undefined> =>
  (await connectionModeOf(clientId, connector)) === undefined ? undefined : marketVerdict(market, nowMs, MARKET_TIMING);
