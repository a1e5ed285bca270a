/**
 * The one definition of the DynamoDB table: used by the CDK stack, the local runner and the
 * tests, so the deployed and the local tables cannot drift.
 *
 * Every key is a string. The base table (pk, sk) holds every entity; the three GSIs share the
 * base partition key and re-sort an offer-view partition by another field (see README "Data model").
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

export const GLOBAL_SECONDARY_INDEXES: readonly IndexDefinition[] = Object.values(OFFER_INDEXES);

/** Name of the environment variable that carries the table name to every function. */
export const TABLE_NAME_ENV = 'TABLE_NAME';

/** Table name used by `npm start`, the CLI and the benchmark against DynamoDB Local. */
export const LOCAL_TABLE_NAME = 'repricer-local';
