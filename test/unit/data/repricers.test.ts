import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { Repricer } from '../../../lambdas/shared/domain/records.js';
import { encodeDirectory } from '../../../lambdas/shared/data/rank-store.js';
import { createRepricer, deleteRepricer, replaceRepricer } from '../../../lambdas/shared/data/repricers.js';
import { product, repricer, repricerFields } from './fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const NOW = '2026-11-22T10:15:30.123Z';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ID_KEY = '00000007';
// Fixed-width base-36 epoch milliseconds of NOW, followed by the id key.
const NOW_KEY = `${Date.parse(NOW).toString(36).padStart(9, '0')}${ID_KEY}`;
const SORTS = ['id', 'updated_at', 'created_at'];

type Action = Record<string, { Key?: Record<string, unknown>; Item?: Record<string, unknown>; ConditionExpression?: string; ExpressionAttributeValues?: Record<string, unknown> }>;

const newRepricer = repricerFields;
const stored = (overrides: Partial<Repricer> = {}, version = 1) => ({ record: repricer(overrides), version });

const cancelled = (reasons: { Code: string; Item?: Record<string, unknown> }[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons as never });
const transactions = () => ddb.commandCalls(TransactWriteCommand).map((call) => (call.args[0].input.TransactItems ?? []) as Action[]);
const kind = (action: Action) => Object.keys(action)[0]!;
const body = (action: Action) => Object.values(action)[0]!;
const directories = (actions: Action[]) => actions.filter((a) => body(a).Item?.entity === 'rankDirectory').map(body);
const views = (actions: Action[]) => actions.filter((a) => String((body(a).Key ?? body(a).Item)?.pk).includes('#RV#'));

/** Every directory counts one key (the repricer's own) at version 4. */
const givenDirectories = () => {
  ddb.on(BatchGetCommand).callsFake((request: { RequestItems: Record<string, { Keys: { pk: string; sk: string }[] }> }) => ({
    Responses: {
      'test-table': request.RequestItems['test-table']!.Keys.map((key) => ({ ...key, entity: 'rankDirectory', ...encodeDirectory({ bounds: [''], counts: [1] }), version: 4 })),
    },
  }));
};

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  ddb.on(UpdateCommand).resolves({ Attributes: { value: 7 } });
  ddb.on(BatchGetCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
});

describe('createRepricer', () => {
  it('writes the repricer, its slot, its four views and their twelve directories in one transaction', async () => {
    // Act
    const result = await createRepricer('c1', newRepricer(), NOW);

    // Assert
    expect(result.created).toBe(true);
    if (!result.created) return;
    expect(result.version).toBe(1);
    expect(result.repricer).toEqual({ id: 7, uid: expect.stringMatching(UUID), ...newRepricer(), created_at: NOW, updated_at: NOW });
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.Key).toEqual({ pk: 'COUNTER#repricer', sk: 'COUNTER' });
    expect(transactions()).toHaveLength(1);
    const actions = transactions()[0]!;
    expect(actions.slice(0, 2)).toEqual([
      {
        Put: {
          TableName: 'test-table',
          Item: { pk: 'T#c1#R#7', sk: 'REPRICER', entity: 'repricer', version: 1, record: result.repricer },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: 'test-table',
          Item: { pk: 'T#c1#RSLOT#SKU-1#takealot', sk: 'SLOT', entity: 'repricerSlot', repricerId: 7 },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ]);
    expect(views(actions)).toEqual(['*#*', '*#=SKU-1', 'true#*', 'true#=SKU-1'].map((view) => ({
      Put: {
        TableName: 'test-table',
        Item: { pk: `T#c1#RV#${view}`, sk: ID_KEY, entity: 'repricerView', idKey: ID_KEY, updatedKey: NOW_KEY, createdKey: NOW_KEY, record: result.repricer },
      },
    })));
    expect(directories(actions)).toHaveLength(12);
    expect(directories(actions)).toContainEqual({
      TableName: 'test-table',
      Item: { pk: 'T#c1#RDIR#true#=SKU-1', sk: 'created_at', entity: 'rankDirectory', bounds: '', counts: '1', version: 1 },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(actions).toHaveLength(2 + 4 + 12);
  });

  it('gives each repricer its own uid', async () => {
    // Act
    const first = await createRepricer('c1', newRepricer(), NOW);
    const second = await createRepricer('c1', newRepricer(), NOW);

    // Assert
    expect(first.created && second.created && first.repricer.uid !== second.repricer.uid).toBe(true);
  });

  it('encodes product codes in the slot and view keys so they cannot forge another key', async () => {
    // Act
    await createRepricer('c1', newRepricer({ product: product({ code: 'A#RSLOT#x/1' }) }), NOW);

    // Assert
    const actions = transactions()[0]!;
    expect(body(actions[1]!).Item?.pk).toBe('T#c1#RSLOT#A%23RSLOT%23x%2F1#takealot');
    expect(views(actions).map((a) => body(a).Item?.pk)).toContain('T#c1#RV#*#=A%23RSLOT%23x%2F1');
  });

  it('reports the id holding a taken slot, read from the wire-format item', async () => {
    // Arrange
    ddb.on(TransactWriteCommand).rejects(
      cancelled([
        { Code: 'None' },
        { Code: 'ConditionalCheckFailed', Item: { pk: { S: 'T#c1#RSLOT#SKU-1#takealot' }, sk: { S: 'SLOT' }, repricerId: { N: '3' } } },
      ]),
    );

    // Act
    const result = await createRepricer('c1', newRepricer(), NOW);

    // Assert
    expect(result).toEqual({ created: false, existingId: 3 });
  });

  it('reads the minimal wire item { repricerId: { N: "7" } }', async () => {
    // Arrange
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 12 } });
    ddb.on(TransactWriteCommand).rejects(cancelled([{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Item: { repricerId: { N: '7' } } }]));

    // Act & Assert
    await expect(createRepricer('c1', newRepricer(), NOW)).resolves.toEqual({ created: false, existingId: 7 });
  });

  it('re-reads the directories and retries after losing a race on one of them', async () => {
    // Arrange: a directory (action 6) changed between the read and the write
    const race = cancelled([...Array.from({ length: 6 }, () => ({ Code: 'None' })), { Code: 'ConditionalCheckFailed' }]);
    ddb.on(TransactWriteCommand).rejectsOnce(race).resolves({});

    // Act
    const result = await createRepricer('c1', newRepricer(), NOW);

    // Assert
    expect(result.created).toBe(true);
    expect(transactions()).toHaveLength(2);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(2);
  });

  it('gives up with the last error when every attempt conflicts', async () => {
    // Arrange
    const error = cancelled([{ Code: 'None' }, { Code: 'TransactionConflict' }]);
    ddb.on(TransactWriteCommand).rejects(error);

    // Act & Assert
    await expect(createRepricer('c1', newRepricer(), NOW)).rejects.toBe(error);
    expect(transactions()).toHaveLength(6);
  });

  it.each<[string, { Code: string; Item?: Record<string, unknown> }[]]>([
    ['the repricer item (not the slot) failed its condition', [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }]],
    ['no reasons were given', []],
  ])('rethrows a cancellation where %s, without retrying', async (_case, reasons) => {
    // Arrange
    const error = cancelled(reasons);
    ddb.on(TransactWriteCommand).rejects(error);

    // Act & Assert
    await expect(createRepricer('c1', newRepricer(), NOW)).rejects.toBe(error);
    expect(transactions()).toHaveLength(1);
  });

  it('rethrows other errors unchanged', async () => {
    // Arrange
    const error = Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' });
    ddb.on(TransactWriteCommand).rejects(error);

    // Act & Assert
    await expect(createRepricer('c1', newRepricer(), NOW)).rejects.toBe(error);
  });

  it('writes nothing when no id can be reserved', async () => {
    // Arrange
    ddb.on(UpdateCommand).rejects(new Error('down'));

    // Act & Assert
    await expect(createRepricer('c1', newRepricer(), NOW)).rejects.toThrow('down');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('replaceRepricer', () => {
  it('writes the next version only over the version read, and moves the views it leaves and joins', async () => {
    // Arrange
    givenDirectories();
    const current = stored();
    const record = { ...current.record, enabled: false, updated_at: NOW };

    // Act
    const saved = await replaceRepricer('c1', current, record);

    // Assert
    expect(saved).toEqual({ record, version: 2 });
    const actions = transactions()[0]!;
    expect(actions[0]).toEqual({
      Put: {
        TableName: 'test-table',
        Item: { pk: 'T#c1#R#7', sk: 'REPRICER', entity: 'repricer', version: 2, record },
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': 1 },
      },
    });
    expect(views(actions).filter((a) => kind(a) === 'Put').map((a) => body(a).Item?.pk)).toEqual(['*#*', '*#=SKU-1', 'false#*', 'false#=SKU-1'].map((v) => `T#c1#RV#${v}`));
    expect(views(actions).filter((a) => kind(a) === 'Delete').map((a) => body(a).Key)).toEqual([
      { pk: 'T#c1#RV#true#*', sk: ID_KEY },
      { pk: 'T#c1#RV#true#=SKU-1', sk: ID_KEY },
    ]);
    // The two views kept move in updated_at only; the four left or joined move in every order.
    const moved = directories(actions).map((d) => `${String(d.Item?.pk).replace('T#c1#RDIR#', '')}|${String(d.Item?.sk)}`);
    expect(moved.sort()).toEqual([
      '*#*|updated_at', '*#=SKU-1|updated_at',
      ...SORTS.flatMap((sort) => ['false#*', 'false#=SKU-1', 'true#*', 'true#=SKU-1'].map((view) => `${view}|${sort}`)),
    ].sort());
    expect(directories(actions).find((d) => d.Item?.pk === 'T#c1#RDIR#*#*')).toMatchObject({
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': 4 },
      Item: { version: 5, counts: '1' },
    });
    expect(actions.some((a) => String((body(a).Key ?? body(a).Item)?.pk).includes('RSLOT'))).toBe(false);
  });

  it('is undefined when another write changed the repricer first', async () => {
    // Arrange
    ddb.on(TransactWriteCommand).rejects(cancelled([{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }]));

    // Act & Assert
    await expect(replaceRepricer('c1', stored(), { ...stored().record, preferred_price: 90 })).resolves.toBeUndefined();
    expect(transactions()).toHaveLength(1);
  });

  it('writes no directory when no sort key moves', async () => {
    // Act
    await replaceRepricer('c1', stored(), { ...stored().record, preferred_price: 90 });

    // Assert
    expect(directories(transactions()[0]!)).toEqual([]);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});

describe('deleteRepricer', () => {
  it('deletes the version read, its views, and its slot only while the slot names it, emptying its directories', async () => {
    // Arrange
    givenDirectories();

    // Act
    const deleted = await deleteRepricer('c1', stored({}, 3));

    // Assert
    expect(deleted).toBe(true);
    const actions = transactions()[0]!;
    expect(actions.slice(0, 2)).toEqual([
      { Delete: { TableName: 'test-table', Key: { pk: 'T#c1#R#7', sk: 'REPRICER' }, ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': 3 } } },
      {
        Delete: {
          TableName: 'test-table',
          Key: { pk: 'T#c1#RSLOT#SKU-1#takealot', sk: 'SLOT' },
          ConditionExpression: 'repricerId = :id',
          ExpressionAttributeValues: { ':id': 7 },
        },
      },
    ]);
    expect(views(actions).map((a) => [kind(a), body(a).Key])).toEqual(['*#*', '*#=SKU-1', 'true#*', 'true#=SKU-1'].map((v) => ['Delete', { pk: `T#c1#RV#${v}`, sk: ID_KEY }]));
    expect(directories(actions)).toHaveLength(12);
    expect(directories(actions).every((d) => d.Item?.counts === '0' && d.Item.version === 5)).toBe(true);
    expect(directories(actions).some((d) => d.Item?.sk === 'created_at' && d.Item.pk === 'T#c1#RDIR#*#*')).toBe(true);
  });

  it('is false when another write changed the repricer first', async () => {
    // Arrange
    givenDirectories();
    ddb.on(TransactWriteCommand).rejects(cancelled([{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }]));

    // Act & Assert
    await expect(deleteRepricer('c1', stored())).resolves.toBe(false);
  });

  it('fails loudly when the slot names another repricer', async () => {
    // Arrange
    givenDirectories();
    const error = cancelled([{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }]);
    ddb.on(TransactWriteCommand).rejects(error);

    // Act & Assert
    await expect(deleteRepricer('c1', stored())).rejects.toBe(error);
  });
});
