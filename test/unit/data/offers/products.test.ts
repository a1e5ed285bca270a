import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { getProduct, getProducts, upsertProducts } from '../../../../lambdas/data/offers/products.js';
import { CREATED_AT, product, productFields } from '../fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const NOW = '2026-11-22T10:15:30.123Z';
const storedItem = (record = product()) => ({ pk: `T#c1#P#${record.code}`, sk: 'PRODUCT', entity: 'product', record });

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
});

describe('getProduct', () => {
  it('reads the product under the tenant', async () => {
    // Arrange
    ddb.on(GetCommand).resolves({ Item: storedItem() });

    // Act
    const found = await getProduct('c1', 'SKU-1');

    // Assert
    expect(found).toEqual(product());
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({ TableName: 'test-table', Key: { pk: 'T#c1#P#SKU-1', sk: 'PRODUCT' } });
  });

  it('encodes the code in the key', async () => {
    ddb.on(GetCommand).resolves({});
    await expect(getProduct('c1', 'a b#c')).resolves.toBeUndefined();
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input.Key).toEqual({ pk: 'T#c1#P#a%20b%23c', sk: 'PRODUCT' });
  });

  it('refuses a stored item that is not a product record', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...storedItem(), record: { ...product(), soh: -1 } } });
    await expect(getProduct('c1', 'SKU-1')).rejects.toThrow();
  });
});

describe('getProducts', () => {
  it('reads each code once and maps the records by code', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [storedItem(), storedItem(product({ code: 'SKU-2', id: 12 }))] } });

    // Act
    const found = await getProducts('c1', ['SKU-1', 'SKU-2', 'SKU-1']);

    // Assert
    expect([...found.keys()].sort()).toEqual(['SKU-1', 'SKU-2']);
    expect(found.get('SKU-2')?.id).toBe(12);
    expect(ddb.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.['test-table']?.Keys).toEqual([
      { pk: 'T#c1#P#SKU-1', sk: 'PRODUCT' },
      { pk: 'T#c1#P#SKU-2', sk: 'PRODUCT' },
    ]);
  });
});

describe('upsertProducts', () => {
  const productPut = (record: Record<string, unknown>) => ({
    PutRequest: { Item: { pk: 'T#c1#P#SKU-1', sk: 'PRODUCT', dirPk: 'T#c1#PRODUCTS', dirSk: 'SKU-1', entity: 'product', record } },
  });
  const writes = () => ddb.commandCalls(BatchWriteCommand).flatMap((call) => call.args[0].input.RequestItems?.['test-table'] ?? []);

  beforeEach(() => {
    ddb.on(BatchWriteCommand).resolves({});
  });

  it("creates a new product with a fresh id, listed in the tenant's product directory", async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [] } });
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 21 } });

    // Act
    const written = await upsertProducts('c1', [productFields()], NOW);

    // Assert
    expect(written).toBe(1);
    expect(writes()).toEqual([productPut({ id: 21, ...productFields(), created_at: NOW, updated_at: NOW })]);
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input).toMatchObject({
      Key: { pk: 'COUNTER#product', sk: 'COUNTER' },
      ExpressionAttributeValues: { ':count': 1 },
    });
  });

  it('keeps the product line id a market sync stored when an import changes the product', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [{ ...storedItem(), productLineId: 'PLID77' }] } });

    // Act
    const written = await upsertProducts('c1', [productFields({ title: 'Renamed' })], NOW);

    // Assert
    expect(written).toBe(1);
    expect(writes()).toEqual([
      { PutRequest: { Item: { ...productPut({ ...product(), title: 'Renamed', updated_at: NOW }).PutRequest.Item, productLineId: 'PLID77' } } },
    ]);
  });

  it('does not rewrite an unchanged product', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [storedItem()] } });

    // Act
    const written = await upsertProducts('c1', [productFields()], NOW);

    // Assert
    expect(written).toBe(0);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it("rewrites a changed product under its id and created_at; its offers' copies follow from the change stream", async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [storedItem()] } });

    // Act
    const written = await upsertProducts('c1', [productFields({ soh: 0 })], NOW);

    // Assert
    expect(written).toBe(1);
    expect(writes()).toEqual([productPut({ ...product({ soh: 0 }), created_at: CREATED_AT, updated_at: NOW })]);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });
});
