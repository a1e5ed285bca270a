import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { readPartition } from '../../../../lambdas/data/table/partition.js';

const ddb = mockClient(DynamoDBDocumentClient);

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => ddb.reset());

describe('readPartition', () => {
  it('reads every page of the partition, consistently, in order', async () => {
    // Prepare: two pages
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ pk: 'P', sk: 'a' }], LastEvaluatedKey: { pk: 'P', sk: 'a' } })
      .resolvesOnce({ Items: [{ pk: 'P', sk: 'b' }] });

    // Act
    const items = await readPartition('P');

    // Assess
    expect(items.map((item) => item.sk)).toEqual(['a', 'b']);
    const inputs = ddb.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(inputs).toEqual([
      { TableName: 'test-table', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'P' }, ConsistentRead: true },
      {
        TableName: 'test-table',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'P' },
        ConsistentRead: true,
        ExclusiveStartKey: { pk: 'P', sk: 'a' },
      },
    ]);
  });

  it('keeps to the sort keys that begin with the prefix, and asks for the capacity when told', async () => {
    // Prepare
    ddb.on(QueryCommand).resolves({ Items: [] });

    // Act
    await readPartition('P', { prefix: 'O#', capacity: true });

    // Assess
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': 'P', ':prefix': 'O#' },
      ReturnConsumedCapacity: 'TOTAL',
    });
  });
});
