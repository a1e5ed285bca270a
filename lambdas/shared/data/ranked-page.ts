import { QueryCommand, type NativeAttributeValue, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { SortDirection } from '../domain/list-parameters.js';
import { countBelowPrefix, locate, totalOf } from '../domain/rank-directory.js';
import { documentClient, tableName } from './dynamo.js';
import type { RankOrder } from './rank-order.js';
import { keyAtPosition, readDirectory } from './rank-store.js';
import { ReadStats } from './read-stats.js';

export interface RankedPageRequest {
  readonly view: string;
  readonly order: RankOrder;
  readonly direction: SortDirection;
  readonly limit: number;
  readonly start: number;
  /** Leaves out the keys whose histogram prefix sorts below this one (a `_gte` filter). */
  readonly fromPrefix?: string;
}

export interface RankedPage {
  readonly total: number;
  /** The view items of the page, in order, as stored. */
  readonly items: Record<string, NativeAttributeValue>[];
  readonly stats: ReadStats;
}

/**
 * One page of a ranked view in at most three round trips, whatever the view's size or `start`:
 *  1. the view's rank directory gives the exact total and the bucket holding `start`;
 *  2. at most half a bucket of keys-only index entries is stepped through to the page's first
 *     key (skipped at a bucket edge);
 *  3. one Query on the table or the order's GSI reads exactly the page.
 */
export const readRankedPage = async (clientId: string, request: RankedPageRequest): Promise<RankedPage> => {
  const stats = new ReadStats();
  const { view, order } = request;
  const { directory } = await readDirectory(clientId, view, order, stats);
  const all = totalOf(directory);
  const below = request.fromPrefix === undefined ? 0 : countBelowPrefix(directory, request.fromPrefix);
  const total = all - below;
  const size = Math.min(request.limit, total - request.start);
  if (size <= 0) return { total, items: [], stats };

  const ascending = request.direction === 'ASC';
  // Positions count in ascending key order; a descending page starts from the top.
  const bucket = locate(directory, ascending ? below + request.start : all - 1 - request.start);
  const atEdge = ascending ? bucket.offset === 0 : bucket.offset === bucket.count - 1;
  let condition: { operator: '>=' | '<=' | '<'; key: string } | undefined;
  if (!atEdge) {
    const key = await keyAtPosition(clientId, view, order, bucket, stats);
    condition = { operator: ascending ? '>=' : '<=', key };
  } else if (ascending && bucket.lower) {
    condition = { operator: '>=', key: bucket.lower };
  } else if (!ascending && bucket.upper) {
    condition = { operator: '<', key: bucket.upper };
  }

  const { storage } = order;
  const items: Record<string, NativeAttributeValue>[] = [];
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const input: QueryCommandInput = {
      TableName: tableName(),
      ...(storage.pageIndex ? { IndexName: storage.pageIndex } : {}),
      KeyConditionExpression: condition ? `pk = :pk AND #sort ${condition.operator} :key` : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': order.viewPartition(clientId, view), ...(condition ? { ':key': condition.key } : {}) },
      ...(condition ? { ExpressionAttributeNames: { '#sort': storage.pageAttribute } } : {}),
      ScanIndexForward: ascending,
      Limit: size - items.length,
      ReturnConsumedCapacity: 'TOTAL',
      ...(exclusiveStartKey ? { ExclusiveStartKey: exclusiveStartKey } : {}),
    };
    const result = await documentClient.send(new QueryCommand(input));
    stats.record(result.ConsumedCapacity);
    items.push(...(result.Items ?? []));
    exclusiveStartKey = result.LastEvaluatedKey;
  } while (exclusiveStartKey && items.length < size);
  return { total, items, stats };
};
