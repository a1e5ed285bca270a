/**
 * Creates the service table on a DynamoDB endpoint from `lambdas/shared/config/table-schema.ts`, the same
 * definition the CDK stack deploys, so the local table cannot drift from the real one.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  waitUntilTableNotExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { GLOBAL_SECONDARY_INDEXES, KEY_ATTRIBUTES, STREAM_VIEW_TYPE, TABLE_KEYS, TTL_ATTRIBUTE } from '../../lambdas/shared/config/table-schema.js';

const WAIT_SECONDS = 60;

export const createTableInput = (tableName: string): CreateTableCommandInput => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: KEY_ATTRIBUTES.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
  KeySchema: [
    { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
    { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
  ],
  GlobalSecondaryIndexes: GLOBAL_SECONDARY_INDEXES.map((index) => ({
    IndexName: index.indexName,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' },
      { AttributeName: index.sortKey, KeyType: 'RANGE' },
    ],
    Projection: { ProjectionType: index.projection },
  })),
  StreamSpecification: { StreamEnabled: true, StreamViewType: STREAM_VIEW_TYPE },
});

export const tableExists = async (client: DynamoDBClient, tableName: string): Promise<boolean> => {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (error) {
    if (error instanceof ResourceNotFoundException || (error as Error).name === 'ResourceNotFoundException') return false;
    throw error;
  }
};

/** Creates the table, waits until it is ACTIVE, then turns on TTL. Fails if it exists. */
export const createTable = async (client: DynamoDBClient, tableName: string): Promise<void> => {
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await waitUntilTableExists({ client, maxWaitTime: WAIT_SECONDS, minDelay: 1 }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  );
};

export const deleteTable = async (client: DynamoDBClient, tableName: string): Promise<void> => {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  await waitUntilTableNotExists({ client, maxWaitTime: WAIT_SECONDS, minDelay: 1 }, { TableName: tableName });
};
