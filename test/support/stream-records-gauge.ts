/**
 * How many stream records a DynamoDB Local holds. It keeps every record it ever wrote while it
 * runs, deleted tables' included, and numbers them from one counter for the whole instance (the
 * key of the single SQLite table they share), so the sequence number of the newest record is
 * their count. A small table of the gauge's own gets one item per reading, and the sequence
 * number of that item's record is the reading. What makes the count matter:
 * test/support/dynamodb-workers.ts.
 */
import { CreateTableCommand, DescribeTableCommand, PutItemCommand, ResourceNotFoundException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand, type DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { createLocalDynamoClient } from '../../tools/local/dynamodb-local.js';
import { localStreamsClient } from '../../tools/local/stream-poller.js';

/** A name no test file's table takes (theirs are `test-<uuid>`: `startTestApi` in test/support/local-api.ts). */
export const GAUGE_TABLE = 'local-stream-records-gauge';

const mark = (client: DynamoDBClient) =>
  client.send(new PutItemCommand({ TableName: GAUGE_TABLE, Item: { pk: { S: 'gauge' }, at: { N: String(Date.now()) } } }));

const markCreatingTable = async (client: DynamoDBClient): Promise<void> => {
  try {
    await mark(client);
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await client.send(
      new CreateTableCommand({
        TableName: GAUGE_TABLE,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
      }),
    );
    // DynamoDB Local makes a table ACTIVE at once: no wait before the first write.
    await mark(client);
  }
};

/** The newest sequence number of the gauge table's open shard (it holds one record per reading). */
const newestSequenceNumber = async (client: DynamoDBClient, streams: DynamoDBStreamsClient): Promise<number> => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: GAUGE_TABLE }));
  const streamArn = Table?.LatestStreamArn;
  if (streamArn === undefined) throw new Error(`${GAUGE_TABLE} has no stream`);
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  let newest = 0;
  for (const shard of StreamDescription?.Shards ?? []) {
    let iterator = (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' })))
      .ShardIterator;
    while (iterator !== undefined) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      for (const record of page.Records ?? []) newest = Math.max(newest, Number(record.dynamodb?.SequenceNumber ?? 0));
      if ((page.Records ?? []).length === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return newest;
};

/** The stream records the instance at `endpoint` holds, counted by a write of the gauge's own. */
export const heldStreamRecords = async (endpoint: string): Promise<number> => {
  const client = createLocalDynamoClient(endpoint);
  const streams = localStreamsClient(endpoint);
  try {
    await markCreatingTable(client);
    return await newestSequenceNumber(client, streams);
  } finally {
    client.destroy();
    streams.destroy();
  }
};
