import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { getProduct, getProducts, upsertProducts } from '../../../lambdas/shared/data/products.js';
import { CREATED_AT, product, productFields } from './fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const NOW = '2026-11-22T10:15:30.123Z';
const storedItem = (record = product(), copiesAt: string | undefined = record.updated_at) => ({
  pk: `T#c1#P#${record.code}`, sk: 'PRODUCT', entity: 'product', updatedAt: record.updated_at, ...(copiesAt ? { copiesAt } : {}), record,
});
const membership = (id: string, views: string[]) => ({ pk: 'T#c1#PO#SKU-1', sk: id, entity: 'productOffer', offerId: `OF-${id}`, views });
const transactItems = () => ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems ?? []);

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  ddb.on(TransactWriteCommand).resolves({});
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
    TableName: 'test-table',
    Item: { pk: 'T#c1#P#SKU-1', sk: 'PRODUCT', entity: 'product', updatedAt: NOW, record },
  });
  const copiesCaughtUp = {
    TableName: 'test-table',
    Key: { pk: 'T#c1#P#SKU-1', sk: 'PRODUCT' },
    UpdateExpression: 'SET copiesAt = :at',
    ConditionExpression: 'updatedAt = :at',
    ExpressionAttributeValues: { ':at': NOW },
  };

  it('creates a new product with a fresh id, then records that its (no) copies caught up', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [] } });
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 21 } });
    ddb.on(QueryCommand).resolves({ Items: [] });

    // Act
    const written = await upsertProducts('c1', [productFields()], NOW);

    // Assert
    expect(written).toBe(1);
    const record = { id: 21, ...productFields(), created_at: NOW, updated_at: NOW };
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual([productPut(record)]);
    expect(transactItems()).toEqual([]);
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'T#c1#PO#SKU-1' },
      ConsistentRead: true,
    });
    expect(ddb.commandCalls(UpdateCommand).at(-1)?.args[0].input).toEqual(copiesCaughtUp);
  });

  it('does not rewrite an unchanged product whose copies are up to date', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [storedItem()] } });

    // Act
    const written = await upsertProducts('c1', [productFields()], NOW);

    // Assert
    expect(written).toBe(0);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('writes the product first, then its copy in every view of every offer', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [storedItem()] } });
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [membership('00000001', ['ALL#*', 'ALL#=winning'])], LastEvaluatedKey: { pk: 'T#c1#PO#SKU-1', sk: '00000001' } })
      .resolvesOnce({ Items: [membership('00000002', ['ALL#*'])] });

    // Act
    const written = await upsertProducts('c1', [productFields({ soh: 0 })], NOW);

    // Assert
    expect(written).toBe(1);
    const record = { ...product({ soh: 0 }), created_at: CREATED_AT, updated_at: NOW };
    const update = (pk: string, sk: string) => ({
      Update: {
        TableName: 'test-table',
        Key: { pk, sk },
        UpdateExpression: 'SET #record.#product = :product',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#record': 'record', '#product': 'product' },
        ExpressionAttributeValues: { ':product': record },
      },
    });
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual([productPut(record)]);
    expect(transactItems()).toEqual([
      [update('T#c1#OV#ALL#*', '00000001'), update('T#c1#OV#ALL#=winning', '00000001'), update('T#c1#OV#ALL#*', '00000002')],
    ]);
    expect(ddb.commandCalls(QueryCommand)[1]?.args[0].input.ExclusiveStartKey).toEqual({ pk: 'T#c1#PO#SKU-1', sk: '00000001' });
    expect(ddb.commandCalls(UpdateCommand).at(-1)?.args[0].input).toEqual(copiesCaughtUp);
  });

  it('splits more than 100 copies into transactions of at most 100', async () => {
    // Arrange: 150 offers, one view each
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [storedItem()] } });
    ddb.on(QueryCommand).resolves({
      Items: Array.from({ length: 150 }, (_, i) => membership(String(i + 1).padStart(8, '0'), ['ALL#*'])),
    });

    // Act
    await upsertProducts('c1', [productFields({ title: 'Kettle 2' })], NOW);

    // Assert
    expect(transactItems().map((items) => items.length)).toEqual([100, 50]);
  });

  it('brings every offer copy up to date on the next upsert after a transaction of copies failed', async () => {
    // Arrange: a tiny table: the product item and 150 view copies, each remembering the product's
    // updated_at; a TransactWrite applies all its writes or none.
    const LATER = '2026-11-23T00:00:00.000Z';
    let stored = storedItem();
    const copies = new Map(Array.from({ length: 150 }, (_, i) => [String(i + 1).padStart(8, '0'), CREATED_AT]));
    let failNextAt: number | undefined = 2;
    let transaction = 0;
    ddb.on(BatchGetCommand).callsFake(() => ({ Responses: { 'test-table': [stored] } }));
    ddb.on(QueryCommand).callsFake(() => ({ Items: [...copies.keys()].map((sk) => membership(sk, ['ALL#*'])) }));
    ddb.on(PutCommand).callsFake((input: { Item: ReturnType<typeof storedItem> }) => {
      stored = { ...input.Item };
      return {};
    });
    ddb.on(UpdateCommand).callsFake((input: { ExpressionAttributeValues: { ':at': string } }) => {
      if (stored.updatedAt === input.ExpressionAttributeValues[':at']) stored = { ...stored, copiesAt: input.ExpressionAttributeValues[':at'] };
      return {};
    });
    ddb.on(TransactWriteCommand).callsFake((input: { TransactItems: { Update: { Key: { sk: string }; ExpressionAttributeValues: Record<string, { updated_at: string }> } }[] }) => {
      transaction++;
      if (transaction === failNextAt) throw Object.assign(new Error('Throughput exceeded'), { name: 'ProvisionedThroughputExceededException' });
      for (const action of input.TransactItems) copies.set(action.Update.Key.sk, action.Update.ExpressionAttributeValues[':product']!.updated_at);
      return {};
    });

    // Act: the first import fails half-way; the same import is run again
    await expect(upsertProducts('c1', [productFields({ title: 'Kettle 2' })], LATER)).rejects.toThrow('Throughput exceeded');
    failNextAt = undefined;
    await upsertProducts('c1', [productFields({ title: 'Kettle 2' })], '2026-11-24T00:00:00.000Z');

    // Assert: no listed offer still carries the old product
    expect(stored.record.title).toBe('Kettle 2');
    expect([...copies.values()].filter((updatedAt) => updatedAt !== stored.record.updated_at)).toEqual([]);
  });
});
