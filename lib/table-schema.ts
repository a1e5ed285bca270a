/**
 * The one definition of the DynamoDB table: used by the CDK stack, the local runner and the
 * tests, so the deployed and the local tables cannot drift.
 *
 * Every key is a string. The base table (pk, sk) holds every entity. An offer-view partition
 * is sorted four ways: by id (the table itself) and by the three offer GSIs, which project
 * whole items so a page is one Query; a repricer-view partition is sorted by id, `updatedKey`
 * (shared with offers) and `createdKey`. The keys-only LSIs hold the same orders with strongly
 * consistent reads: they are what the rank directories count and step through
 * (see README "Data model"). DynamoDB allows at most five LSIs: all five are used.
 */
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk' } as const;

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** Offer-view items are read whole from these indexes, so they project everything. */
  readonly projection: 'ALL';
}

export const OFFER_INDEXES = {
  byCompetitors: { indexName: 'byCompetitors', partitionKey: 'pk', sortKey: 'tcKey', projection: 'ALL' },
  byPrice: { indexName: 'byPrice', partitionKey: 'pk', sortKey: 'priceKey', projection: 'ALL' },
  byUpdated: { indexName: 'byUpdated', partitionKey: 'pk', sortKey: 'updatedKey', projection: 'ALL' },
} as const satisfies Record<string, IndexDefinition>;

/** Orders only repricers are listed in; repricers reuse `byUpdated` for `updated_at`. */
export const REPRICER_INDEXES = {
  byCreated: { indexName: 'byCreated', partitionKey: 'pk', sortKey: 'createdKey', projection: 'ALL' },
} as const satisfies Record<string, IndexDefinition>;

export const GLOBAL_SECONDARY_INDEXES: readonly IndexDefinition[] = [...Object.values(OFFER_INDEXES), ...Object.values(REPRICER_INDEXES)];

export interface LocalIndexDefinition {
  readonly indexName: string;
  readonly sortKey: string;
  /** Only keys: stepping through a few hundred of them costs about one read unit. */
  readonly projection: 'KEYS_ONLY';
}

export const RANK_INDEXES = {
  rankById: { indexName: 'rankById', sortKey: 'idKey', projection: 'KEYS_ONLY' },
  rankByCompetitors: { indexName: 'rankByCompetitors', sortKey: 'tcKey', projection: 'KEYS_ONLY' },
  rankByPrice: { indexName: 'rankByPrice', sortKey: 'priceKey', projection: 'KEYS_ONLY' },
  rankByUpdated: { indexName: 'rankByUpdated', sortKey: 'updatedKey', projection: 'KEYS_ONLY' },
  rankByCreated: { indexName: 'rankByCreated', sortKey: 'createdKey', projection: 'KEYS_ONLY' },
} as const satisfies Record<string, LocalIndexDefinition>;

export const LOCAL_SECONDARY_INDEXES: readonly LocalIndexDefinition[] = Object.values(RANK_INDEXES);

/** Every attribute used in a key of the table or an index; all are strings. */
export const KEY_ATTRIBUTES: readonly string[] = [
  ...new Set([
    TABLE_KEYS.partitionKey,
    TABLE_KEYS.sortKey,
    ...GLOBAL_SECONDARY_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
    ...LOCAL_SECONDARY_INDEXES.map((index) => index.sortKey),
  ]),
];

/** Attribute holding the expiry time (epoch seconds) of items DynamoDB deletes by TTL. */
export const TTL_ATTRIBUTE = 'expiresAt';

/** Name of the environment variable that carries the table name to every function. */
export const TABLE_NAME_ENV = 'TABLE_NAME';

/** Table name used by `npm start`, the CLI and the benchmark against DynamoDB Local. */
export const LOCAL_TABLE_NAME = 'repricer-local';
