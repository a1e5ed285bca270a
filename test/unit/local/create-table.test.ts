import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTableInput, deleteTable, isTransientFailure } from '../../../tools/local/create-table.js';
import { GLOBAL_SECONDARY_INDEXES, KEY_ATTRIBUTES, STREAM_VIEW_TYPE, TABLE_KEYS } from '../../../lambdas/config/table-schema.js';

describe('createTableInput', () => {
  const input = createTableInput('repricer-test');

  it('is an on-demand table keyed as the schema says', () => {
    expect(input).toMatchObject({
      TableName: 'repricer-test',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
    });
  });

  it('defines every key attribute of the schema once, as a string', () => {
    const names = input.AttributeDefinitions?.map((a) => a.AttributeName);
    expect(names).toEqual([...KEY_ATTRIBUTES]);
    expect(new Set(names).size).toBe(names?.length);
    expect(input.AttributeDefinitions?.every((a) => a.AttributeType === 'S')).toBe(true);
  });

  it('creates exactly the global secondary indexes of the schema', () => {
    expect(input.GlobalSecondaryIndexes).toEqual(
      GLOBAL_SECONDARY_INDEXES.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: index.projection },
      })),
    );
  });

  it('creates no local secondary index: none may cap a growing partition', () => {
    expect(input.LocalSecondaryIndexes).toBeUndefined();
  });

  it('turns on the change stream with old and new images, which drives the list maintenance', () => {
    expect(input.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(STREAM_VIEW_TYPE).toBe('NEW_AND_OLD_IMAGES');
  });
});

describe('deleteTable on a slow DynamoDB Local', () => {
  /** A client whose answers to DeleteTable and DescribeTable are scripted, in order. */
  const scriptedClient = (script: Record<'DeleteTableCommand' | 'DescribeTableCommand', (() => unknown)[]>) => {
    const sent: string[] = [];
    const client = {
      send: async (command: { constructor: { name: string } }) => {
        const name = command.constructor.name as keyof typeof script;
        sent.push(name);
        const next = script[name].shift();
        if (!next) throw new Error(`unexpected ${name}`);
        return next();
      },
    };
    return { client: client as unknown as DynamoDBClient, sent };
  };
  const fail = (props: Record<string, string>) => () => {
    throw Object.assign(new Error(props.message ?? 'failed'), props);
  };
  const hangUp = fail({ message: 'socket hang up', code: 'ECONNRESET' });
  const notFound = fail({ name: 'ResourceNotFoundException', message: 'Cannot do operations on a non-existent table' });
  const fast = { backoffMs: 1 };

  it('retries a socket hang-up and a timeout, then waits until the table is gone', async () => {
    // Prepare
    const { client, sent } = scriptedClient({
      DeleteTableCommand: [hangUp, fail({ name: 'TimeoutError' }), () => ({})],
      DescribeTableCommand: [() => ({ Table: { TableStatus: 'DELETING' } }), notFound],
    });

    // Act
    await deleteTable(client, 't', fast);

    // Assess
    expect(sent).toEqual(['DeleteTableCommand', 'DeleteTableCommand', 'DeleteTableCommand', 'DescribeTableCommand', 'DescribeTableCommand']);
  });

  it('counts a table already gone, or a DynamoDB Local that has stopped, as deleted', async () => {
    await expect(deleteTable(scriptedClient({ DeleteTableCommand: [hangUp, notFound], DescribeTableCommand: [] }).client, 't', fast)).resolves.toBeUndefined();
    await expect(
      deleteTable(
        scriptedClient({ DeleteTableCommand: [fail({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' })], DescribeTableCommand: [] }).client,
        't',
        fast,
      ),
    ).resolves.toBeUndefined();
  });

  it('gives up after its bound of failed attempts, and at once on an error that is not transient', async () => {
    const failing = scriptedClient({ DeleteTableCommand: [hangUp, hangUp, hangUp], DescribeTableCommand: [] });
    await expect(deleteTable(failing.client, 't', { ...fast, attempts: 3 })).rejects.toThrow(/Could not delete table t \(3 failed attempts/);
    expect(failing.sent).toHaveLength(3);
    const denied = scriptedClient({ DeleteTableCommand: [fail({ name: 'AccessDeniedException' })], DescribeTableCommand: [] });
    await expect(deleteTable(denied.client, 't', fast)).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });

  it.each([
    [{ message: 'socket hang up', code: 'ECONNRESET' }, true],
    [{ name: 'TimeoutError' }, true],
    [{ name: 'ResourceInUseException' }, true],
    [{ name: 'ValidationException' }, false],
    [undefined, false],
  ])('isTransientFailure(%j) is %s', (error, transient) => {
    expect(isTransientFailure(error)).toBe(transient);
  });
});
