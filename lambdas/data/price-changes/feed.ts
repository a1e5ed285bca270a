import { QueryCommand, UpdateCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { PRICE_CHANGE_FEED_INDEX } from '../../config/table-schema.js';
import type { FeedPosition, PriceChangeFeedQuery } from '../../domain/price-change-feed.js';
import type { PriceChange } from '../../domain/records.js';
import { batchGet, keyString } from '../table/batch.js';
import { isConditionFailure } from '../table/conditions.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { priceChangeFeedKey, priceChangeFeedPartition } from '../table/keys.js';
import { storedPriceChange } from './list.js';

/**
 * The tenant's price changes in the order of their last update, from PRICE_CHANGE_FEED_INDEX
 * (keys only): one Query of at most `limit + 1` keys, then one BatchGetItem of the canonical
 * items (consistent, so a change is never older than the entry that led to it). An entry's key
 * is the update time, then the item's key: unique, so the last key read is the whole position.
 */
export interface FeedPage {
  readonly priceChanges: PriceChange[];
  /** Where the next page starts: after the last change given, or where this one started when it gave none. */
  readonly position: FeedPosition;
  /** More changes, already settled, follow the position. */
  readonly more: boolean;
}

type Item = Record<string, NativeAttributeValue>;

const timeOf = (key: string) => key.slice(0, key.indexOf('#'));

export const readPriceChangeFeed = async (clientId: string, query: PriceChangeFeedQuery): Promise<FeedPage> => {
  // '$' sorts right after '#': every key of a change updated at `since` sorts before it, every later one after.
  const start: FeedPosition = 'since' in query.after ? { updatedAt: query.after.since, key: `${query.after.since}$` } : query.after.position;
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: PRICE_CHANGE_FEED_INDEX.indexName,
      KeyConditionExpression: '#pk = :pk AND #sk > :after',
      ExpressionAttributeNames: { '#pk': PRICE_CHANGE_FEED_INDEX.partitionKey, '#sk': PRICE_CHANGE_FEED_INDEX.sortKey },
      ExpressionAttributeValues: { ':pk': priceChangeFeedPartition(clientId), ':after': start.key },
      Limit: query.limit + 1,
    }),
  );
  const entries = (result.Items ?? []) as Item[];
  const settled: Item[] = [];
  for (const entry of entries) {
    if (timeOf(String(entry[PRICE_CHANGE_FEED_INDEX.sortKey])) > query.until) break;
    settled.push(entry);
  }
  const page = settled.slice(0, query.limit);
  const found = new Map(
    (await batchGet(page.map((entry) => ({ pk: String(entry.pk), sk: String(entry.sk) })))).map((item) => [
      keyString(item as { pk: unknown; sk: unknown }),
      item,
    ]),
  );
  // An item gone meanwhile (its TTL) is left out; its place still counts for the position.
  const priceChanges = page.flatMap((entry) => {
    const item = found.get(keyString(entry as { pk: unknown; sk: unknown }));
    const parsed = item ? storedPriceChange.safeParse(item) : undefined;
    return parsed?.success ? [parsed.data.record] : [];
  });
  const last = page.at(-1);
  const lastKey = last === undefined ? undefined : String(last[PRICE_CHANGE_FEED_INDEX.sortKey]);
  return {
    priceChanges,
    position: lastKey === undefined ? start : { updatedAt: timeOf(lastKey), key: lastKey },
    more: settled.length > query.limit,
  };
};

/**
 * Puts in the feed the price changes stored before it existed (a rebuild passes every product's
 * items): each enters at its `updated_at`. Once: an item that has an entry keeps it.
 */
export const enterPriceChangeFeed = async (clientId: string, code: string, items: readonly Item[]): Promise<void> => {
  for (const item of items) {
    if (item[PRICE_CHANGE_FEED_INDEX.sortKey] !== undefined) continue;
    const parsed = storedPriceChange.safeParse(item);
    if (!parsed.success) continue;
    const feed = priceChangeFeedKey(clientId, parsed.data.record.updated_at, code, String(item.sk));
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: { pk: String(item.pk), sk: String(item.sk) },
          UpdateExpression: 'SET #pk = :pk, #sk = :sk',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#sk)',
          ExpressionAttributeNames: { '#pk': PRICE_CHANGE_FEED_INDEX.partitionKey, '#sk': PRICE_CHANGE_FEED_INDEX.sortKey },
          ExpressionAttributeValues: { ':pk': feed.chgPk, ':sk': feed.chgSk },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
};
