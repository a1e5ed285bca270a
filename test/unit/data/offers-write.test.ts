import { jest } from '@jest/globals';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { OFFER_SORT_FIELDS } from '../../../lambdas/shared/domain/offer-query.js';
import type { OfferFields } from '../../../lambdas/shared/domain/records.js';
import { idKey, sortKeyOf } from '../../../lambdas/shared/data/offer-keys.js';
import { deleteOffers, upsertOffers, type OfferInput } from '../../../lambdas/shared/data/offers-write.js';
import { encodeDirectory } from '../../../lambdas/shared/data/rank-store.js';
import { CREATED_AT, offerFields, product } from './fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const NOW = '2026-11-22T10:15:30.123Z';
const OWNER = { clientId: 'c1', sellerId: 'seller-own' };
const PRODUCT = product();

type Item = Record<string, unknown>;
type Action = Record<string, { TableName?: string; Key?: Item; Item?: Item; ConditionExpression?: string; ExpressionAttributeValues?: Item }>;

/** What the table holds: canonical offers, products and directories, by "pk|sk". */
let stored: Map<string, Item>;
const store = (item: Item) => stored.set(`${String(item.pk)}|${String(item.sk)}`, item);

const input = (overrides: Partial<OfferFields> = {}, productCode = 'SKU-1'): OfferInput => ({ ...offerFields(overrides), product_code: productCode });
const storedOffer = (id: number, overrides: Partial<OfferFields> = {}, version = 1) => ({
  pk: `T#c1#OID#${overrides.offer_id ?? 'OF-1'}`,
  sk: 'OFFER',
  entity: 'offer',
  id,
  product_code: 'SKU-1',
  fields: offerFields(overrides),
  created_at: CREATED_AT,
  updated_at: CREATED_AT,
  version,
});

/** Stores the directories of the given views at `version`, each counting only this offer. */
const storeDirectoriesOf = (offer: ReturnType<typeof storedOffer>, views: string[], version: number) => {
  const sortable = { id: offer.id, ...offer.fields, updated_at: offer.updated_at };
  for (const view of views) {
    for (const sort of OFFER_SORT_FIELDS) {
      const histogram = sort === 'total_competitors' ? { histogram: { [sortKeyOf(sortable, sort).slice(0, 4)]: 1 } } : {};
      store({ pk: `T#c1#ODIR#${view}`, sk: sort, ...encodeDirectory({ bounds: [''], counts: [1], ...histogram }), version });
    }
  }
};

const transactions = () => ddb.commandCalls(TransactWriteCommand).map((call) => (call.args[0].input.TransactItems ?? []) as Action[]);
const kind = (action: Action) => Object.keys(action)[0]!;
const body = (action: Action) => Object.values(action)[0]!;
const addressOf = (action: Action) => {
  const { Key, Item: item } = body(action);
  const key = Key ?? item!;
  return `${String(key.pk)}|${String(key.sk)}`;
};
const directoryPuts = (actions: Action[]) =>
  Object.fromEntries(actions.filter((a) => kind(a) === 'Put' && body(a).Item?.entity === 'rankDirectory').map((a) => [addressOf(a), body(a)]));

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  jest.useFakeTimers({ now: new Date(NOW), doNotFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'nextTick', 'queueMicrotask'] });
  stored = new Map();
  store({ pk: 'T#c1#P#SKU-1', sk: 'PRODUCT', entity: 'product', updatedAt: PRODUCT.updated_at, record: PRODUCT });
  ddb.on(BatchGetCommand).callsFake((request: { RequestItems: Record<string, { Keys: Item[] }> }) => ({
    Responses: { 'test-table': request.RequestItems['test-table']!.Keys.flatMap((key) => stored.get(`${String(key.pk)}|${String(key.sk)}`) ?? []) },
  }));
  ddb.on(UpdateCommand).resolves({ Attributes: { value: 1 } });
  ddb.on(TransactWriteCommand).resolves({});
});

afterEach(() => {
  jest.useRealTimers();
});

describe('upsertOffers', () => {
  it('writes a new own offer, its four views, its membership, its 16 directories and a product check in one transaction', async () => {
    // Act
    const summary = await upsertOffers(OWNER, [input()]);

    // Assert
    expect(summary).toEqual({ written: 1, unchanged: 0, transactions: 1 });
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input).toMatchObject({ Key: { pk: 'COUNTER#offer', sk: 'COUNTER' }, ExpressionAttributeValues: { ':count': 1 } });
    const [actions = []] = transactions();
    expect(actions).toHaveLength(23);

    const record = { id: 1, ...offerFields(), product: PRODUCT, created_at: NOW, updated_at: NOW };
    const sortAttributes = { idKey: '00000001', tcKey: sortKeyOf(record, 'total_competitors'), priceKey: sortKeyOf(record, 'offer_price'), updatedKey: sortKeyOf(record, 'updated_at') };
    expect(actions.slice(0, 6)).toEqual([
      {
        Put: {
          TableName: 'test-table',
          Item: { pk: 'T#c1#OID#OF-1', sk: 'OFFER', entity: 'offer', id: 1, product_code: 'SKU-1', fields: offerFields(), created_at: NOW, updated_at: NOW, version: 1 },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...['ALL#*', 'ALL#=winning', 'OWN#*', 'OWN#=winning'].map((view) => ({
        Put: { TableName: 'test-table', Item: { pk: `T#c1#OV#${view}`, sk: '00000001', entity: 'offerView', ...sortAttributes, record } },
      })),
      {
        Put: {
          TableName: 'test-table',
          Item: { pk: 'T#c1#PO#SKU-1', sk: '00000001', entity: 'productOffer', offerId: 'OF-1', views: ['ALL#*', 'ALL#=winning', 'OWN#*', 'OWN#=winning'] },
        },
      },
    ]);

    const directories = directoryPuts(actions);
    expect(Object.keys(directories)).toHaveLength(16);
    expect(directories['T#c1#ODIR#OWN#*|total_competitors']).toEqual({
      TableName: 'test-table',
      Item: { pk: 'T#c1#ODIR#OWN#*', sk: 'total_competitors', entity: 'rankDirectory', bounds: '', counts: '1', histogram: '0005:1', version: 1 },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(directories['T#c1#ODIR#ALL#=winning|offer_price']?.Item).toEqual({
      pk: 'T#c1#ODIR#ALL#=winning', sk: 'offer_price', entity: 'rankDirectory', bounds: '', counts: '1', version: 1,
    });

    expect(actions[actions.length - 1]).toEqual({
      ConditionCheck: {
        TableName: 'test-table',
        Key: { pk: 'T#c1#P#SKU-1', sk: 'PRODUCT' },
        ConditionExpression: 'updatedAt = :updatedAt',
        ExpressionAttributeValues: { ':updatedAt': PRODUCT.updated_at },
      },
    });
  });

  it('lists another seller\'s offer in the ALL views only', async () => {
    // Act
    await upsertOffers(OWNER, [input({ seller_id: 'seller-other' })]);

    // Assert
    const [actions = []] = transactions();
    expect(actions.filter((a) => body(a).Item?.entity === 'offerView').map(addressOf)).toEqual(['T#c1#OV#ALL#*|00000001', 'T#c1#OV#ALL#=winning|00000001']);
    expect(Object.keys(directoryPuts(actions))).toHaveLength(8);
  });

  it('never addresses one item twice in a transaction, even for several offers of one product', async () => {
    // Arrange: DynamoDB refuses "multiple operations on one item" in a transaction
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 3 } });

    // Act
    await upsertOffers(OWNER, [input({ offer_id: 'A' }), input({ offer_id: 'B', seller_id: 'seller-other' }), input({ offer_id: 'C', competitiveness: 'losing' })]);

    // Assert
    const [actions = []] = transactions();
    const addresses = actions.map(addressOf);
    expect(addresses.filter((address, i) => addresses.indexOf(address) !== i)).toEqual([]);
    expect(actions.filter((a) => kind(a) === 'ConditionCheck')).toHaveLength(1);
    expect(directoryPuts(actions)['T#c1#ODIR#ALL#*|id']?.Item).toMatchObject({ bounds: '', counts: '3' });
    expect(directoryPuts(actions)['T#c1#ODIR#OWN#=winning|id']?.Item).toMatchObject({ counts: '1' });
  });

  it('numbers new offers from the first reserved id', async () => {
    // Arrange: the counter went to 12 for 2 ids -> 11 and 12
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 12 } });

    // Act
    await upsertOffers(OWNER, [input({ offer_id: 'A' }), input({ offer_id: 'B' })]);

    // Assert
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.ExpressionAttributeValues).toEqual({ ':count': 2 });
    const canonical = transactions()[0]!.filter((a) => body(a).Item?.entity === 'offer').map((a) => [body(a).Item!.pk, body(a).Item!.id]);
    expect(canonical).toEqual([['T#c1#OID#A', 11], ['T#c1#OID#B', 12]]);
  });

  it('does not rewrite an unchanged offer', async () => {
    // Arrange
    store(storedOffer(4));

    // Act
    const summary = await upsertOffers(OWNER, [input()]);

    // Assert
    expect(summary).toEqual({ written: 0, unchanged: 1, transactions: 0 });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('moves a changed offer between views and directories under its version', async () => {
    // Arrange: offer 4 is "winning" with directories at version 6 holding its keys
    const before = storedOffer(4, {}, 2);
    store(before);
    storeDirectoriesOf(before, ['ALL#*', 'ALL#=winning', 'OWN#*', 'OWN#=winning'], 6);

    // Act
    const summary = await upsertOffers(OWNER, [input({ competitiveness: 'losing' })]);

    // Assert
    expect(summary).toEqual({ written: 1, unchanged: 0, transactions: 1 });
    const [actions = []] = transactions();
    expect(actions[0]).toEqual({
      Put: {
        TableName: 'test-table',
        Item: expect.objectContaining({ pk: 'T#c1#OID#OF-1', id: 4, version: 3, created_at: CREATED_AT, updated_at: NOW }),
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': 2 },
      },
    });
    expect(actions.filter((a) => kind(a) === 'Delete').map(addressOf).sort()).toEqual(['T#c1#OV#ALL#=winning|00000004', 'T#c1#OV#OWN#=winning|00000004']);
    const directories = directoryPuts(actions);
    // Left views empty; the unfiltered views only move the updated_at key (the other keys are unchanged).
    expect(directories['T#c1#ODIR#ALL#=winning|id']).toEqual({
      TableName: 'test-table',
      Item: { pk: 'T#c1#ODIR#ALL#=winning', sk: 'id', entity: 'rankDirectory', bounds: '', counts: '0', version: 7 },
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': 6 },
    });
    expect(directories['T#c1#ODIR#OWN#=winning|total_competitors']?.Item).toMatchObject({ counts: '0', histogram: '' });
    expect(directories['T#c1#ODIR#ALL#=losing|id']?.Item).toMatchObject({ counts: '1', version: 1 });
    expect(directories['T#c1#ODIR#ALL#*|updated_at']?.Item).toMatchObject({ counts: '1', version: 7 });
    expect(directories).not.toHaveProperty(['T#c1#ODIR#ALL#*|id']);
    expect(directories).not.toHaveProperty(['T#c1#ODIR#ALL#*|offer_price']);
  });

  it('splits a bucket that grows past 256 keys, reading its keys from the rank index', async () => {
    // Arrange: ALL#* by id holds 256 keys in one bucket; offer 257 of another seller arrives
    store({ pk: 'T#c1#ODIR#ALL#*', sk: 'id', ...encodeDirectory({ bounds: [''], counts: [256] }), version: 3 });
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 257 } });
    ddb.on(QueryCommand).resolves({ Items: Array.from({ length: 256 }, (_, i) => ({ pk: 'T#c1#OV#ALL#*', sk: idKey(i + 1), idKey: idKey(i + 1) })) });

    // Act
    await upsertOffers(OWNER, [input({ seller_id: 'seller-other' })]);

    // Assert
    expect(ddb.commandCalls(QueryCommand).map((call) => call.args[0].input)).toEqual([
      expect.objectContaining({ IndexName: 'rankById', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'T#c1#OV#ALL#*' }, ConsistentRead: true }),
    ]);
    // 257 keys -> 3 parts of 86, 86, 85, starting at ids 1, 87 and 173
    expect(directoryPuts(transactions()[0]!)['T#c1#ODIR#ALL#*|id']?.Item).toEqual({
      pk: 'T#c1#ODIR#ALL#*', sk: 'id', entity: 'rankDirectory', bounds: `,${idKey(87)},${idKey(173)}`, counts: '86,86,85', version: 4,
    });
  });

  it('packs many offers into transactions of at most 100 writes', async () => {
    // Arrange: each new own offer is 6 writes; the group shares 16 directories and 1 product check
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 20 } });

    // Act
    const summary = await upsertOffers(OWNER, Array.from({ length: 20 }, (_, i) => input({ offer_id: `O${i}` })));

    // Assert: 13 offers (78 + 16 + 1 = 95 writes), then 7 offers (42 + 16 + 1 = 59)
    expect(summary).toEqual({ written: 20, unchanged: 0, transactions: 2 });
    expect(transactions().map((actions) => actions.length)).toEqual([95, 59]);
  });

  it('re-reads and retries a group that lost a race', async () => {
    // Arrange
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] }))
      .resolves({});

    // Act
    const summary = await upsertOffers(OWNER, [input()]);

    // Assert
    expect(summary.transactions).toBe(1);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(2);
    const offerReads = ddb.commandCalls(BatchGetCommand).filter((call) => call.args[0].input.RequestItems?.['test-table']?.Keys?.[0]?.sk === 'OFFER');
    expect(offerReads).toHaveLength(2);
  });

  it('passes other errors on without retrying', async () => {
    // Arrange
    const error = Object.assign(new Error('Throughput exceeded'), { name: 'ProvisionedThroughputExceededException' });
    ddb.on(TransactWriteCommand).rejects(error);

    // Act & Assert
    await expect(upsertOffers(OWNER, [input()])).rejects.toBe(error);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('refuses an offer whose product does not exist, writing nothing', async () => {
    await expect(upsertOffers(OWNER, [input({}, 'NOPE')])).rejects.toThrow('Offer OF-1 names an unknown product');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('deleteOffers', () => {
  it('deletes the offer, its views and membership, and takes it out of its directories', async () => {
    // Arrange
    const before = storedOffer(4, { seller_id: 'seller-other' }, 5);
    store(before);
    storeDirectoriesOf(before, ['ALL#*', 'ALL#=winning'], 2);

    // Act
    const summary = await deleteOffers(OWNER, ['OF-1', 'UNKNOWN']);

    // Assert
    expect(summary).toEqual({ written: 1, unchanged: 0, transactions: 1 });
    const [actions = []] = transactions();
    expect(actions.filter((a) => kind(a) === 'Delete')).toEqual([
      { Delete: { TableName: 'test-table', Key: { pk: 'T#c1#OID#OF-1', sk: 'OFFER' }, ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': 5 } } },
      { Delete: { TableName: 'test-table', Key: { pk: 'T#c1#OV#ALL#*', sk: '00000004' } } },
      { Delete: { TableName: 'test-table', Key: { pk: 'T#c1#OV#ALL#=winning', sk: '00000004' } } },
      { Delete: { TableName: 'test-table', Key: { pk: 'T#c1#PO#SKU-1', sk: '00000004' } } },
    ]);
    expect(actions.filter((a) => kind(a) === 'ConditionCheck')).toHaveLength(0);
    const directories = directoryPuts(actions);
    expect(Object.keys(directories)).toHaveLength(8);
    expect(directories['T#c1#ODIR#ALL#*|total_competitors']).toEqual({
      TableName: 'test-table',
      Item: { pk: 'T#c1#ODIR#ALL#*', sk: 'total_competitors', entity: 'rankDirectory', bounds: '', counts: '0', histogram: '', version: 3 },
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': 2 },
    });
  });

  it('writes nothing for ids that do not exist', async () => {
    await expect(deleteOffers(OWNER, ['UNKNOWN'])).resolves.toEqual({ written: 0, unchanged: 0, transactions: 0 });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});
