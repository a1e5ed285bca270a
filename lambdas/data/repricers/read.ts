import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Repricer } from '../../domain/records.js';
import type { RepricerQuery } from '../../domain/repricer-query.js';
import { batchGet } from '../table/batch.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { productPartition, repricerKey, SLOT_SK_PREFIX } from '../table/keys.js';
import { readRankedPage } from '../lists/ranked/read-page.js';
import { ReadStats } from '../table/read-stats.js';
import { REPRICER_LIST, repricerCell, storedRepricer, type StoredRepricer } from './list.js';
import { MAX_ID } from '../table/sort-keys.js';

/** A repricer and its version, read consistently: what a conditional write starts from. */
export const getRepricer = async (clientId: string, id: number): Promise<StoredRepricer | undefined> => {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) return undefined;
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: repricerKey(clientId, id), ConsistentRead: true }));
  return result.Item ? storedRepricer.parse(result.Item) : undefined;
};

export interface RepricerPage {
  readonly total: number;
  readonly repricers: Repricer[];
  readonly stats: ReadStats;
}

const sortValue = (repricer: Repricer, field: RepricerQuery['sort']['field']) => (field === 'id' ? repricer.id : Date.parse(repricer[field]));

/**
 * The repricers of one product: at most one per connector, found through the product's slots
 * and sorted and cut here.
 */
const listProductRepricers = async (clientId: string, query: RepricerQuery & { productCode: string }): Promise<RepricerPage> => {
  const stats = new ReadStats();
  const slots = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :slot)',
      ExpressionAttributeValues: { ':pk': productPartition(clientId, query.productCode), ':slot': SLOT_SK_PREFIX },
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  stats.record(slots.ConsumedCapacity);
  stats.roundTrips += 1;
  const ids = (slots.Items ?? []).map((slot) => Number(slot.repricerId));
  const records = (
    await batchGet(
      ids.map((id) => repricerKey(clientId, id)),
      false,
    )
  )
    .map((item) => storedRepricer.parse(item).record)
    .filter((record) => query.enabled === undefined || record.enabled === query.enabled);
  if (ids.length > 0) {
    stats.calls += 1;
    stats.roundTrips += 1;
  }
  const sign = query.sort.direction === 'ASC' ? 1 : -1;
  records.sort((a, b) => sign * (sortValue(a, query.sort.field) - sortValue(b, query.sort.field) || a.id - b.id));
  return { total: records.length, repricers: records.slice(query.start, query.start + query.limit), stats };
};

/** One page of the client's repricers in at most three round trips (data/lists/ranked/read-page.ts). */
export const listRepricers = async (clientId: string, query: RepricerQuery): Promise<RepricerPage> => {
  if (query.productCode !== undefined) return listProductRepricers(clientId, { ...query, productCode: query.productCode });
  const page = await readRankedPage(clientId, REPRICER_LIST, {
    order: query.sort.field,
    direction: query.sort.direction,
    filter: { cells: (cell) => query.enabled === undefined || cell === repricerCell(query.enabled) },
    start: query.start,
    limit: query.limit,
  });
  return { total: page.total, repricers: page.records, stats: page.stats };
};

export const readRepricers = async (clientId: string, ids: readonly number[]): Promise<StoredRepricer[]> =>
  (await batchGet(ids.map((id) => repricerKey(clientId, id)))).map((item) => storedRepricer.parse(item));
