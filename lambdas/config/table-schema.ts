/**
 * The one definition of the DynamoDB table: used by the CDK stack, the local runner and the
 * tests, so the deployed and the local tables cannot drift.
 *
 * Every key is a string. The base table (pk, sk) holds every entity. A listing partition (one
 * per tenant, ranked entity and cell, docs/data-model.md) is sorted by id in the table itself
 * and by the other sort orders in the GSIs below, which project whole listing items so a page
 * is one Query per cell. No local secondary index: they would cap a partition at 10 GB and
 * keep it on one storage partition.
 */
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk' } as const;

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  readonly projection: 'ALL' | 'KEYS_ONLY';
}

/** Sort orders of listing partitions other than id: whole listing items, in the order's key. */
export const LISTING_INDEXES = {
  byCompetitors: { indexName: 'byCompetitors', partitionKey: 'pk', sortKey: 'tcKey', projection: 'ALL' },
  byPrice: { indexName: 'byPrice', partitionKey: 'pk', sortKey: 'priceKey', projection: 'ALL' },
  byUpdated: { indexName: 'byUpdated', partitionKey: 'pk', sortKey: 'updatedKey', projection: 'ALL' },
  byCreated: { indexName: 'byCreated', partitionKey: 'pk', sortKey: 'createdKey', projection: 'ALL' },
} as const satisfies Record<string, IndexDefinition>;

/**
 * Keys only: the clients of the service, and each tenant's products by code. How a rebuild
 * finds every canonical item without a Scan (an account purge must also find the derived
 * items, whose partitions are named from the data, and scans: tools/admin/purge.ts). An entry is
 * written once per client or product, never per offer.
 */
export const DIRECTORY_INDEX = {
  indexName: 'directory',
  partitionKey: 'dirPk',
  sortKey: 'dirSk',
  projection: 'KEYS_ONLY',
} as const satisfies IndexDefinition;

/**
 * Keys only: each tenant's price changes in the order of their last update (`chgPk` one
 * partition per tenant, `chgSk` the update time then the item's key), for polling
 * `GET /v1/price-changes?updated_since=` with a cursor that does not drift
 * (lambdas/data/price-changes/feed.ts). A status move rewrites the entry; the sender's own
 * attributes do not touch it. The page reads the canonical items by key.
 */
export const PRICE_CHANGE_FEED_INDEX = {
  indexName: 'priceChangesByUpdate',
  partitionKey: 'chgPk',
  sortKey: 'chgSk',
  projection: 'KEYS_ONLY',
} as const satisfies IndexDefinition;

/**
 * The storefront pages watched, by the time of their next look (lambdas/data/market/page-watches.ts):
 * the read planner's Query for what is due, so no tick reads a tenant's catalogue. Sparse (only
 * page watches carry its keys) and sharded by page (`DUE#<n>`), so one partition never takes
 * every write; whole items, so a plan is one Query per shard with nothing to fetch after it.
 */
export const DUE_INDEX = { indexName: 'due', partitionKey: 'duePk', sortKey: 'dueSk', projection: 'ALL' } as const satisfies IndexDefinition;

export const GLOBAL_SECONDARY_INDEXES: readonly IndexDefinition[] = [...Object.values(LISTING_INDEXES), DIRECTORY_INDEX, PRICE_CHANGE_FEED_INDEX, DUE_INDEX];

/** Every attribute used in a key of the table or an index; all are strings. */
export const KEY_ATTRIBUTES: readonly string[] = [
  ...new Set([TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, ...GLOBAL_SECONDARY_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey])]),
];

/**
 * The table's change stream: old and new images, so the stream consumers see what changed. It
 * drives the list maintenance of offers (docs/data-model.md).
 */
export const STREAM_VIEW_TYPE = 'NEW_AND_OLD_IMAGES';

/** Attribute holding the expiry time (epoch seconds) of items DynamoDB deletes by TTL. */
export const TTL_ATTRIBUTE = 'expiresAt';

/** Name of the environment variable that carries the table name to every function. */
export const TABLE_NAME_ENV = 'TABLE_NAME';

/** Table name used by `npm start`, the CLI and the benchmark against DynamoDB Local. */
export const LOCAL_TABLE_NAME = 'repricer-local';
