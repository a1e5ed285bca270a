import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createRepricer, type NewRepricer } from '../../../lambdas/shared/data/repricers.js';
import { connectorType, product } from './fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const NOW = '2026-11-22T10:15:30.123Z';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const newRepricer = (overrides: Partial<NewRepricer> = {}): NewRepricer => ({
  buybox_approach: 'cheapest',
  repricer_approach: 'fixed',
  enabled: true,
  preferred_price: 100,
  preferred_profit: 20,
  min_price: 76.48,
  min_profit: 0,
  fixed_fulfilment_fee: 5,
  connector_type: connectorType(),
  product: product(),
  ...overrides,
});

const cancelled = (reasons: { Code: string; Item?: Record<string, unknown> }[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons as never });

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  ddb.on(UpdateCommand).resolves({ Attributes: { value: 7 } });
});

describe('createRepricer', () => {
  it('writes the repricer and its slot in one transaction, both only if absent', async () => {
    // Arrange
    ddb.on(TransactWriteCommand).resolves({});

    // Act
    const result = await createRepricer('c1', newRepricer(), NOW);

    // Assert
    expect(result.created).toBe(true);
    if (!result.created) return;
    expect(result.repricer).toEqual({ id: 7, uid: expect.stringMatching(UUID), ...newRepricer(), created_at: NOW, updated_at: NOW });
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.Key).toEqual({ pk: 'COUNTER#repricer', sk: 'COUNTER' });
    const transactions = ddb.commandCalls(TransactWriteCommand);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]?.args[0].input.TransactItems).toEqual([
      {
        Put: {
          TableName: 'test-table',
          Item: { pk: 'T#c1#R#7', sk: 'REPRICER', entity: 'repricer', record: result.repricer },
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
  });

  it('gives each repricer its own uid', async () => {
    // Arrange
    ddb.on(TransactWriteCommand).resolves({});

    // Act
    const first = await createRepricer('c1', newRepricer(), NOW);
    const second = await createRepricer('c1', newRepricer(), NOW);

    // Assert
    expect(first.created && second.created && first.repricer.uid !== second.repricer.uid).toBe(true);
  });

  it('encodes product codes in the slot key so they cannot forge another key', async () => {
    // Arrange
    ddb.on(TransactWriteCommand).resolves({});

    // Act
    await createRepricer('c1', newRepricer({ product: product({ code: 'A#RSLOT#x/1' }) }), NOW);

    // Assert
    const slot = ddb.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems?.[1]?.Put?.Item;
    expect(slot?.pk).toBe('T#c1#RSLOT#A%23RSLOT%23x%2F1#takealot');
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

  it.each<[string, { Code: string; Item?: Record<string, unknown> }[]]>([
    ['the repricer item (not the slot) failed its condition', [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }]],
    ['the transaction conflicted with another one', [{ Code: 'None' }, { Code: 'TransactionConflict' }]],
    ['no reasons were given', []],
  ])('rethrows a cancellation where %s', async (_case, reasons) => {
    // Arrange
    const error = cancelled(reasons);
    ddb.on(TransactWriteCommand).rejects(error);

    // Act & Assert
    await expect(createRepricer('c1', newRepricer(), NOW)).rejects.toBe(error);
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
