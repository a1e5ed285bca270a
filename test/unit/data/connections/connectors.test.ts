import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { getConnectorType, upsertConnectorTypes } from '../../../../lambdas/data/connections/connectors.js';
import { connectorType, connectorTypeFields, CREATED_AT } from '../fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const NOW = '2026-11-22T10:15:30.123Z';
const storedItem = (record = connectorType()) => ({ pk: `CONNECTOR#${record.uid}`, sk: 'CONNECTOR', entity: 'connectorType', record });

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
});

describe('getConnectorType', () => {
  it('reads the connector by uid', async () => {
    // Arrange
    ddb.on(GetCommand).resolves({ Item: storedItem() });

    // Act
    const connector = await getConnectorType('takealot');

    // Assert
    expect(connector).toEqual(connectorType());
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({ TableName: 'test-table', Key: { pk: 'CONNECTOR#takealot', sk: 'CONNECTOR' } });
  });

  it('is undefined for an unknown uid', async () => {
    ddb.on(GetCommand).resolves({});
    await expect(getConnectorType('nope')).resolves.toBeUndefined();
  });

  it('refuses a stored item that is not a connector record', async () => {
    ddb.on(GetCommand).resolves({ Item: { pk: 'CONNECTOR#takealot', sk: 'CONNECTOR', record: { uid: 'takealot' } } });
    await expect(getConnectorType('takealot')).rejects.toThrow();
  });
});

describe('upsertConnectorTypes', () => {
  it('creates a new connector with a fresh id', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [] } });
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 4 } });
    ddb.on(PutCommand).resolves({});

    // Act
    const written = await upsertConnectorTypes([connectorTypeFields({ uid: 'bol', name: 'Bol' })], NOW);

    // Assert
    expect(written).toBe(1);
    expect(ddb.commandCalls(PutCommand).map((call) => call.args[0].input)).toEqual([
      {
        TableName: 'test-table',
        Item: {
          pk: 'CONNECTOR#bol',
          sk: 'CONNECTOR',
          entity: 'connectorType',
          record: { id: 4, ...connectorTypeFields({ uid: 'bol', name: 'Bol' }), created_at: NOW, updated_at: NOW },
          priceStep: 1,
        },
      },
    ]);
  });

  it('does not rewrite an unchanged connector', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [storedItem()] } });

    // Act
    const written = await upsertConnectorTypes([connectorTypeFields()], NOW);

    // Assert
    expect(written).toBe(0);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('rewrites a changed connector, keeping its id and creation time', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [storedItem()] } });
    ddb.on(PutCommand).resolves({});

    // Act
    const written = await upsertConnectorTypes([connectorTypeFields({ name: 'Takealot.com' })], NOW);

    // Assert
    expect(written).toBe(1);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(ddb.commandCalls(PutCommand)[0]?.args[0].input.Item?.record).toEqual({
      ...connectorType({ name: 'Takealot.com' }),
      created_at: CREATED_AT,
      updated_at: NOW,
    });
  });

  it('writes a uid given twice once when the second is identical', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [] } });
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 9 } });
    ddb.on(PutCommand).resolves({});

    // Act
    const written = await upsertConnectorTypes([connectorTypeFields(), connectorTypeFields()], NOW);

    // Assert
    expect(written).toBe(1);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('stores the price step beside the record, never in it (default 1.00)', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [] } });
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 5 } });
    ddb.on(PutCommand).resolves({});

    // Act
    await upsertConnectorTypes([{ ...connectorTypeFields({ uid: 'ebay' }), price_step: 0.05 }, connectorTypeFields({ uid: 'bol' })], NOW);

    // Assert
    const items = ddb.commandCalls(PutCommand).map((call) => call.args[0].input.Item);
    expect(items.map((item) => item?.priceStep)).toEqual([0.05, 1]);
    expect(items.map((item) => Object.keys(item?.record ?? {}))).toEqual([Object.keys(connectorType()), Object.keys(connectorType())]);
    expect(items[0]?.record).not.toHaveProperty('price_step');
  });

  it('reads a stored price step without letting it into the record', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...storedItem(), priceStep: 0.05 } });
    await expect(getConnectorType('takealot')).resolves.toEqual(connectorType());
  });

  it.each([
    ['an item without a price step and a line without one', undefined, undefined],
    ['an item with the default and a line without one', 1, undefined],
    ['an item without a price step and a line naming the default', undefined, 1],
    ['the same price step', 0.05, 0.05],
  ])('does not rewrite %s', async (_, stored, given) => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [{ ...storedItem(), ...(stored === undefined ? {} : { priceStep: stored }) }] } });

    // Act
    const written = await upsertConnectorTypes([{ ...connectorTypeFields(), ...(given === undefined ? {} : { price_step: given }) }], NOW);

    // Assert
    expect(written).toBe(0);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('rewrites a connector whose price step alone changed, leaving its record as it was', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [{ ...storedItem(), priceStep: 0.05 }] } });
    ddb.on(PutCommand).resolves({});

    // Act
    const written = await upsertConnectorTypes([connectorTypeFields()], NOW);

    // Assert: back to the default, and the API record (updated_at included) unchanged
    expect(written).toBe(1);
    expect(ddb.commandCalls(PutCommand)[0]?.args[0].input.Item).toEqual({ ...storedItem(), priceStep: 1 });
  });
});
