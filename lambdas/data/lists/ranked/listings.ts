import { QueryCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../../table/dynamo.js';
import { listingPartition } from '../../table/keys.js';
import type { ReadStats } from '../../table/read-stats.js';
import { idKey } from '../../table/sort-keys.js';
import type { ListingPlace, RankedList } from './ranked-list.js';

/**
 * Listing items: one per listed item, in its cell's partition, keyed by id and holding its key
 * in every other order (the listing GSIs sort on those), its histogram value `g`, the encoded
 * API record `r`, and `src`, a digest of what it was derived from (a rebuild or a replayed
 * change that finds the same digest has nothing to do).
 */
type Item = Record<string, NativeAttributeValue>;

export const listingKey = <S, R>(clientId: string, list: RankedList<S, R>, cell: string, id: number) => ({
  pk: listingPartition(clientId, list.tag, cell),
  sk: idKey(id),
});

/** The attribute an order's key is stored in: `sk` for the id order, else its index's sort key. */
export const keyAttributeOf = <S, R>(list: RankedList<S, R>, order: string): string => {
  const spec = list.orders[order];
  if (!spec) throw new Error(`${list.entity} has no order ${order}`);
  return spec.index?.sortKey ?? 'sk';
};

/** The key of the canonical item a listing was derived from. */
export interface ListingOrigin {
  readonly pk: string;
  readonly sk: string;
}

export const listingItem = <S, R>(clientId: string, list: RankedList<S, R>, place: ListingPlace, record: R, src: string, origin?: ListingOrigin): Item => ({
  ...listingKey(clientId, list, place.cell, place.id),
  entity: `${list.entity}Listing`,
  cell: place.cell,
  ...(place.g === undefined ? {} : { g: place.g }),
  ...Object.fromEntries(Object.entries(list.orders).flatMap(([name, order]) => (order.index ? [[order.index.sortKey, place.keys[name]]] : []))),
  src,
  ...(origin ? { origin } : {}),
  r: list.codec.encode(record),
});

export const originOfListing = (item: Item): ListingOrigin | undefined => {
  const origin = item.origin as Partial<ListingOrigin> | undefined;
  return typeof origin?.pk === 'string' && typeof origin.sk === 'string' ? { pk: origin.pk, sk: origin.sk } : undefined;
};

export const placeOfListing = <S, R>(list: RankedList<S, R>, item: Item): ListingPlace => ({
  id: parseInt(String(item.sk), 36),
  cell: String(item.cell),
  ...(typeof item.g === 'number' ? { g: item.g } : {}),
  keys: Object.fromEntries(Object.keys(list.orders).map((name) => [name, String(item[keyAttributeOf(list, name)])])),
});

export const recordOfListing = <S, R>(list: RankedList<S, R>, item: Item): R => list.codec.decode(item.r as Uint8Array);

export interface RangeQuery {
  readonly from?: string;
  readonly below?: string;
  /** Items to evaluate at most (before the histogram filter). */
  readonly limit?: number;
  readonly gte?: number;
  readonly consistent: boolean;
  readonly stats?: ReadStats;
}

/** The listing items of one cell whose key in `order` lies in [from, below), ascending. */
export const readListingRange = async <S, R>(clientId: string, list: RankedList<S, R>, order: string, cell: string, query: RangeQuery): Promise<Item[]> => {
  const attribute = keyAttributeOf(list, order);
  const index = list.orders[order]?.index;
  const values: Record<string, NativeAttributeValue> = { ':pk': listingPartition(clientId, list.tag, cell) };
  let condition = 'pk = :pk';
  if (query.from !== undefined && query.below !== undefined) {
    condition += ' AND #key BETWEEN :from AND :below';
    Object.assign(values, { ':from': query.from, ':below': query.below });
  } else if (query.from !== undefined) {
    condition += ' AND #key >= :from';
    values[':from'] = query.from;
  } else if (query.below !== undefined) {
    condition += ' AND #key < :below';
    values[':below'] = query.below;
  }
  if (query.gte !== undefined) values[':gte'] = query.gte;
  const items: Item[] = [];
  let evaluated = 0;
  let start: Item | undefined;
  do {
    const result = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        ...(index ? { IndexName: index.indexName } : {}),
        KeyConditionExpression: condition,
        ...(condition.includes('#key') ? { ExpressionAttributeNames: { '#key': attribute } } : {}),
        ExpressionAttributeValues: values,
        ...(query.gte === undefined ? {} : { FilterExpression: 'g >= :gte' }),
        ConsistentRead: query.consistent && !index,
        ReturnConsumedCapacity: 'TOTAL',
        ...(query.limit === undefined ? {} : { Limit: query.limit - evaluated }),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    query.stats?.record(result.ConsumedCapacity);
    if (query.stats) query.stats.roundTrips += 1;
    evaluated += result.ScannedCount ?? 0;
    for (const item of result.Items ?? []) if (query.below === undefined || String(item[attribute]) < query.below) items.push(item);
    start = result.LastEvaluatedKey;
  } while (start && (query.limit === undefined || evaluated < query.limit));
  return items;
};
