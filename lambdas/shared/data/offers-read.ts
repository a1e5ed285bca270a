import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { OfferQuery } from '../domain/offer-query.js';
import { countBelowPrefix, locate, totalOf } from '../domain/rank-directory.js';
import type { Offer } from '../domain/records.js';
import { documentClient, tableName } from './dynamo.js';
import { offerViewPartition } from './keys.js';
import { competitorsPrefix, idKey, SORT_STORAGE, viewName } from './offer-keys.js';
import { toOffer } from './offer-items.js';
import { keyAtPosition, readDirectory } from './rank-store.js';
import { ReadStats } from './read-stats.js';

export interface OfferPage {
  readonly total: number;
  readonly offers: Offer[];
  readonly stats: ReadStats;
}

/**
 * One page of offers in at most three round trips, whatever the tenant's size or `start`:
 *  1. the view's rank directory gives the exact total and the bucket holding `start`;
 *  2. at most half a bucket of keys-only index entries is stepped through to the page's first
 *     key (skipped at a bucket edge);
 *  3. one Query on the table or the sort's GSI reads exactly the page.
 */
export const listOffers = async (clientId: string, query: OfferQuery): Promise<OfferPage> => {
  const stats = new ReadStats();
  const view = viewName(query.scope, query.competitiveness);
  const field = query.sort.field;
  const { directory } = await readDirectory(clientId, view, field, stats);
  const all = totalOf(directory);
  const below = query.minCompetitors === undefined ? 0 : countBelowPrefix(directory, competitorsPrefix(query.minCompetitors));
  const total = all - below;
  const size = Math.min(query.limit, total - query.start);
  if (size <= 0) return { total, offers: [], stats };

  const ascending = query.sort.direction === 'ASC';
  // Positions count in ascending key order; a descending page starts from the top.
  const bucket = locate(directory, ascending ? below + query.start : all - 1 - query.start);
  const atEdge = ascending ? bucket.offset === 0 : bucket.offset === bucket.count - 1;
  let condition: { operator: '>=' | '<=' | '<'; key: string } | undefined;
  if (!atEdge) {
    const key = await keyAtPosition(clientId, view, field, bucket, stats);
    condition = { operator: ascending ? '>=' : '<=', key };
  } else if (ascending && bucket.lower) {
    condition = { operator: '>=', key: bucket.lower };
  } else if (!ascending && bucket.upper) {
    condition = { operator: '<', key: bucket.upper };
  }

  const storage = SORT_STORAGE[field];
  const offers: Offer[] = [];
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const input: QueryCommandInput = {
      TableName: tableName(),
      ...(storage.pageIndex ? { IndexName: storage.pageIndex } : {}),
      KeyConditionExpression: condition ? `pk = :pk AND #sort ${condition.operator} :key` : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': offerViewPartition(clientId, view), ...(condition ? { ':key': condition.key } : {}) },
      ...(condition ? { ExpressionAttributeNames: { '#sort': storage.pageAttribute } } : {}),
      ScanIndexForward: ascending,
      Limit: size - offers.length,
      ReturnConsumedCapacity: 'TOTAL',
      ...(exclusiveStartKey ? { ExclusiveStartKey: exclusiveStartKey } : {}),
    };
    const result = await documentClient.send(new QueryCommand(input));
    stats.record(result.ConsumedCapacity);
    offers.push(...(result.Items ?? []).map(toOffer));
    exclusiveStartKey = result.LastEvaluatedKey;
  } while (exclusiveStartKey && offers.length < size);
  return { total, offers, stats };
};

/** One offer by its numeric id: every offer is in the unfiltered ALL view. */
export const getOffer = async (clientId: string, id: number): Promise<Offer | undefined> => {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName(), Key: { pk: offerViewPartition(clientId, viewName('all', undefined)), sk: idKey(id) } }),
  );
  return result.Item ? toOffer(result.Item) : undefined;
};
