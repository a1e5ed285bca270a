import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { TABLE_KEYS, TTL_ATTRIBUTE } from '../../config/table-schema.js';
import { dynamoClient, tableName } from './dynamo.js';
import { idempotencyPartition } from './keys.js';

/**
 * Idempotency records live in the single table: pk `IDEMPOTENCY#<scope>` (keys.ts), sk
 * `<scope>#<hash of client id and key>` (built by Powertools), expiring through the table's TTL
 * attribute. One partition per scope is enough: the stage throttle (50 requests/s) keeps its writes far
 * below a partition's 1,000 writes/s.
 */
const stores = new Map<string, DynamoDBPersistenceLayer>();

/** One store per scope and table, built on first use: the table name is read lazily like everywhere else. */
export const idempotencyStore = (scope: string): DynamoDBPersistenceLayer => {
  const table = tableName();
  const id = `${scope}\u0000${table}`;
  let store = stores.get(id);
  if (!store) {
    store = new DynamoDBPersistenceLayer({
      tableName: table,
      keyAttr: TABLE_KEYS.partitionKey,
      sortKeyAttr: TABLE_KEYS.sortKey,
      staticPkValue: idempotencyPartition(scope),
      expiryAttr: TTL_ATTRIBUTE,
      awsSdkV3Client: dynamoClient,
    });
    stores.set(id, store);
  }
  return store;
};
