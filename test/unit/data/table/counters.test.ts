import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { reserveIds } from '../../../../lambdas/data/table/counters.js';

const ddb = mockClient(DynamoDBDocumentClient);

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
});

describe('reserveIds', () => {
  it('adds 1 atomically and returns the new value by default', async () => {
    // Arrange
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 7 } });

    // Act
    const id = await reserveIds('repricer');

    // Assert
    expect(id).toBe(7);
    expect(ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input)).toEqual([
      {
        TableName: 'test-table',
        Key: { pk: 'COUNTER#repricer', sk: 'COUNTER' },
        UpdateExpression: 'ADD #value :count',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':count': 1 },
        ReturnValues: 'UPDATED_NEW',
      },
    ]);
  });

  it.each([
    [5, 105, 101], // the counter went 100 -> 105: ids 101..105 are ours
    [1, 1, 1], // a fresh counter
    [200, 200, 1],
  ])('reserving %p ids that end at %p starts at %p', async (count, last, first) => {
    // Arrange
    ddb.on(UpdateCommand).resolves({ Attributes: { value: last } });

    // Act
    const id = await reserveIds('offer', count);

    // Assert
    expect(id).toBe(first);
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input).toMatchObject({
      Key: { pk: 'COUNTER#offer', sk: 'COUNTER' },
      ExpressionAttributeValues: { ':count': count },
    });
  });

  it.each([
    ['no attributes', {}],
    ['a non-numeric value', { Attributes: { value: 'x' } }],
  ])('fails when the update returns %s', async (_case, output) => {
    // Arrange
    ddb.on(UpdateCommand).resolves(output);

    // Act & Assert
    await expect(reserveIds('product')).rejects.toThrow('Counter product returned no value');
  });

  it('passes DynamoDB errors on', async () => {
    // Arrange
    const error = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    ddb.on(UpdateCommand).rejects(error);

    // Act & Assert
    await expect(reserveIds('connector')).rejects.toBe(error);
  });
});
