import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { emptyDirectory, type BucketPosition, type RankDirectory } from '../domain/rank-directory.js';
import type { OfferSortField } from '../domain/offer-query.js';
import { documentClient, tableName } from './dynamo.js';
import { OFFER_RANK_ORDERS } from './offer-keys.js';
import type { RankOrder } from './rank-order.js';
import type { ReadStats } from './read-stats.js';

/** A rank order, or an offer sort field as shorthand for the offer order of that field. */
export type RankOrderRef = RankOrder | OfferSortField;

export const rankOrderOf = (order: RankOrderRef): RankOrder => (typeof order === 'string' ? OFFER_RANK_ORDERS[order] : order);

/** A directory as stored: compact strings, so a 100,000-key directory stays a few KB. */
const storedDirectory = z.object({
  bounds: z.string(),
  counts: z.string(),
  histogram: z.string().optional(),
  version: z.number().int(),
});

export interface VersionedDirectory {
  readonly directory: RankDirectory;
  /** 0 when the directory does not exist yet. */
  readonly version: number;
}

const decodeHistogram = (text: string): Record<string, number> =>
  Object.fromEntries(text === '' ? [] : text.split(';').map((entry) => {
    const [prefix = '', count = '0'] = entry.split(':');
    return [prefix, Number(count)];
  }));

export const encodeDirectory = (directory: RankDirectory) => ({
  bounds: directory.bounds.join(','),
  counts: directory.counts.join(','),
  ...(directory.histogram
    ? { histogram: Object.entries(directory.histogram).sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, n]) => `${p}:${n}`).join(';') }
    : {}),
});

export const decodeDirectory = (item: Record<string, unknown> | undefined, order: RankOrderRef): VersionedDirectory => {
  if (!item) return { directory: emptyDirectory(rankOrderOf(order).histogramPrefix !== undefined), version: 0 };
  const stored = storedDirectory.parse(item);
  return {
    directory: {
      bounds: stored.bounds.split(','),
      counts: stored.counts.split(',').map(Number),
      ...(stored.histogram === undefined ? {} : { histogram: decodeHistogram(stored.histogram) }),
    },
    version: stored.version,
  };
};

export const readDirectory = async (
  clientId: string,
  view: string,
  order: RankOrderRef,
  stats?: ReadStats,
): Promise<VersionedDirectory> => {
  const result = await documentClient.send(
    new GetCommand({
      TableName: tableName(),
      Key: rankOrderOf(order).directoryKey(clientId, view),
      ConsistentRead: true,
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  stats?.record(result.ConsumedCapacity);
  return decodeDirectory(result.Item, order);
};

/** A consistent Query on the keys-only LSI of one sort order, within one view partition. */
const rankKeyQuery = (
  clientId: string,
  view: string,
  order: RankOrder,
  range: { from?: string; below?: string },
  forward: boolean,
  limit?: number,
): QueryCommandInput => {
  const { rankIndex, rankAttribute } = order.storage;
  const conditions = ['pk = :pk'];
  const values: Record<string, string> = { ':pk': order.viewPartition(clientId, view) };
  if (range.from && range.below) {
    // BETWEEN is inclusive; the caller drops the exclusive upper end.
    conditions.push('#rank BETWEEN :from AND :below');
    values[':from'] = range.from;
    values[':below'] = range.below;
  } else if (range.from) {
    conditions.push('#rank >= :from');
    values[':from'] = range.from;
  } else if (range.below) {
    conditions.push('#rank < :below');
    values[':below'] = range.below;
  }
  return {
    TableName: tableName(),
    IndexName: rankIndex,
    KeyConditionExpression: conditions.join(' AND '),
    ExpressionAttributeValues: values,
    ...(conditions.length > 1 ? { ExpressionAttributeNames: { '#rank': rankAttribute } } : {}),
    ScanIndexForward: forward,
    ConsistentRead: true,
    ReturnConsumedCapacity: 'TOTAL',
    ...(limit === undefined ? {} : { Limit: limit }),
  };
};

/**
 * The key at `bucket.offset` inside a bucket, stepping through keys-only index entries from
 * whichever end of the bucket is nearer: at most half a bucket is read.
 */
export const keyAtPosition = async (
  clientId: string,
  view: string,
  orderRef: RankOrderRef,
  bucket: BucketPosition,
  stats?: ReadStats,
): Promise<string> => {
  const order = rankOrderOf(orderRef);
  const forward = bucket.offset + 1 <= bucket.count - bucket.offset;
  const take = forward ? bucket.offset + 1 : bucket.count - bucket.offset;
  const input = forward
    ? rankKeyQuery(clientId, view, order, { ...(bucket.lower ? { from: bucket.lower } : {}) }, true, take)
    : rankKeyQuery(clientId, view, order, { ...(bucket.upper ? { below: bucket.upper } : {}) }, false, take);
  const result = await documentClient.send(new QueryCommand(input));
  stats?.record(result.ConsumedCapacity);
  const items = result.Items ?? [];
  const key = items.length === take ? items[take - 1]?.[order.storage.rankAttribute] : undefined;
  if (typeof key !== 'string') throw new Error('Rank keys and directory disagree');
  return key;
};

/** Every key of one bucket, in order (write path only: used to split a bucket). */
export const keysInBucket = async (
  clientId: string,
  view: string,
  orderRef: RankOrderRef,
  lower: string,
  upper: string | undefined,
): Promise<string[]> => {
  const order = rankOrderOf(orderRef);
  const keys: string[] = [];
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const input = rankKeyQuery(clientId, view, order, { ...(lower ? { from: lower } : {}), ...(upper ? { below: upper } : {}) }, true);
    const result = await documentClient.send(new QueryCommand({ ...input, ExclusiveStartKey: exclusiveStartKey }));
    for (const item of result.Items ?? []) {
      const key = String(item[order.storage.rankAttribute]);
      if (upper === undefined || key < upper) keys.push(key);
    }
    exclusiveStartKey = result.LastEvaluatedKey;
  } while (exclusiveStartKey);
  return keys;
};
