import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Repricer } from '../domain/records.js';
import type { RepricerQuery } from '../domain/repricer-query.js';
import { documentClient, tableName } from './dynamo.js';
import { repricerKey } from './keys.js';
import { readRankedPage } from './ranked-page.js';
import type { ReadStats } from './read-stats.js';
import { storedRepricer, toRepricer, type StoredRepricer } from './repricer-items.js';
import { REPRICER_RANK_ORDERS, repricerViewName } from './repricer-keys.js';

/** A repricer and its version, read consistently: what a conditional write starts from. */
export const getRepricer = async (clientId: string, id: number): Promise<StoredRepricer | undefined> => {
  if (!Number.isSafeInteger(id) || id < 1) return undefined;
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: repricerKey(clientId, id), ConsistentRead: true }));
  return result.Item ? storedRepricer.parse(result.Item) : undefined;
};

export interface RepricerPage {
  readonly total: number;
  readonly repricers: Repricer[];
  readonly stats: ReadStats;
}

/** One page of the view the filters name, in at most three round trips (see data/ranked-page.ts). */
export const listRepricers = async (clientId: string, query: RepricerQuery): Promise<RepricerPage> => {
  const page = await readRankedPage(clientId, {
    view: repricerViewName(query.enabled, query.productCode),
    order: REPRICER_RANK_ORDERS[query.sort.field],
    direction: query.sort.direction,
    limit: query.limit,
    start: query.start,
  });
  return { total: page.total, repricers: page.items.map(toRepricer), stats: page.stats };
};
