import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { Repricer } from '../../../lambdas/shared/domain/records.js';
import type { RepricerQuery } from '../../../lambdas/shared/domain/repricer-query.js';
import { encodeDirectory } from '../../../lambdas/shared/data/rank-store.js';
import { repricerViewItems } from '../../../lambdas/shared/data/repricer-items.js';
import { repricerSortKeyOf } from '../../../lambdas/shared/data/repricer-keys.js';
import { getRepricer, listRepricers } from '../../../lambdas/shared/data/repricers-read.js';
import { CREATED_AT, repricer as storedRepricer } from './fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const VIEW = 'false#=SKU-1';

const repricer = (id: number, createdAt = CREATED_AT): Repricer =>
  storedRepricer({ id, enabled: false, created_at: createdAt, updated_at: createdAt });
// Three repricers created one second apart, in one bucket of the view's created_at directory.
const RECORDS = [1, 2, 3].map((id) => repricer(id, new Date(Date.parse(CREATED_AT) + id * 1000).toISOString()));
const viewItem = (record: Repricer) => repricerViewItems('c1', record).find((v) => v.view === VIEW)!.item;
const query = (overrides: Partial<RepricerQuery> = {}): RepricerQuery => ({
  enabled: false,
  productCode: 'SKU-1',
  sort: { field: 'created_at', direction: 'ASC' },
  limit: 100,
  start: 0,
  ...overrides,
});
const queries = () => ddb.commandCalls(QueryCommand).map((call) => call.args[0].input);

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand, { Key: { pk: `T#c1#RDIR#${VIEW}`, sk: 'created_at' } }).resolves({
    Item: { pk: `T#c1#RDIR#${VIEW}`, sk: 'created_at', entity: 'rankDirectory', ...encodeDirectory({ bounds: [''], counts: [3] }), version: 3 },
  });
});

describe('getRepricer', () => {
  it('reads the canonical item consistently, with its version', async () => {
    // Arrange
    ddb.on(GetCommand, { Key: { pk: 'T#c1#R#2', sk: 'REPRICER' } }).resolves({ Item: { pk: 'T#c1#R#2', sk: 'REPRICER', entity: 'repricer', version: 4, record: RECORDS[1] } });

    // Act
    const stored = await getRepricer('c1', 2);

    // Assert
    expect(stored).toEqual({ record: RECORDS[1], version: 4 });
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({ TableName: 'test-table', Key: { pk: 'T#c1#R#2', sk: 'REPRICER' }, ConsistentRead: true });
  });

  it('is undefined for a missing repricer', async () => {
    ddb.on(GetCommand).resolves({});
    await expect(getRepricer('c1', 2)).resolves.toBeUndefined();
  });

  it.each([0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1])('reads nothing for the id %p, which no repricer has', async (id) => {
    await expect(getRepricer('c1', id)).resolves.toBeUndefined();
    expect(ddb.calls()).toHaveLength(0);
  });

  it('refuses a stored item without a version', async () => {
    ddb.on(GetCommand).resolves({ Item: { pk: 'T#c1#R#2', sk: 'REPRICER', record: RECORDS[1] } });
    await expect(getRepricer('c1', 2)).rejects.toThrow();
  });
});

describe('listRepricers', () => {
  it('reads the directory of the filtered view, then the page from the order GSI', async () => {
    // Arrange
    ddb.on(QueryCommand).resolves({ Items: RECORDS.map(viewItem) });

    // Act
    const page = await listRepricers('c1', query());

    // Assert
    expect(page.total).toBe(3);
    expect(page.repricers).toEqual(RECORDS);
    expect(queries()).toEqual([
      {
        TableName: 'test-table',
        IndexName: 'byCreated',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `T#c1#RV#${VIEW}` },
        ScanIndexForward: true,
        Limit: 3,
        ReturnConsumedCapacity: 'TOTAL',
      },
    ]);
  });

  it('steps through the keys-only LSI to a start inside a bucket', async () => {
    // Arrange: start 1 of 3, descending, is the middle key: two keys read from the bucket's lower end
    const keys = RECORDS.map((r) => repricerSortKeyOf(r, 'created_at'));
    ddb.on(QueryCommand, { IndexName: 'rankByCreated' }).resolves({ Items: [{ createdKey: keys[0] }, { createdKey: keys[1] }] });
    ddb.on(QueryCommand, { IndexName: 'byCreated' }).resolves({ Items: [viewItem(RECORDS[1]!)] });

    // Act
    const page = await listRepricers('c1', query({ sort: { field: 'created_at', direction: 'DESC' }, start: 1, limit: 1 }));

    // Assert
    expect(page.repricers).toEqual([RECORDS[1]]);
    expect(queries()[0]).toMatchObject({ IndexName: 'rankByCreated', ScanIndexForward: true, ConsistentRead: true, Limit: 2 });
    expect(queries()[1]).toMatchObject({
      IndexName: 'byCreated',
      KeyConditionExpression: 'pk = :pk AND #sort <= :key',
      ExpressionAttributeNames: { '#sort': 'createdKey' },
      ExpressionAttributeValues: { ':pk': `T#c1#RV#${VIEW}`, ':key': keys[1] },
      ScanIndexForward: false,
      Limit: 1,
    });
  });

  it.each<[Partial<RepricerQuery>, string, string, string | undefined]>([
    [{ enabled: undefined, productCode: undefined, sort: { field: 'id', direction: 'ASC' } }, '*#*', 'id', undefined],
    [{ enabled: true, productCode: undefined, sort: { field: 'updated_at', direction: 'ASC' } }, 'true#*', 'updated_at', 'byUpdated'],
    [{ enabled: undefined, productCode: 'A#B', sort: { field: 'created_at', direction: 'ASC' } }, '*#=A%23B', 'created_at', 'byCreated'],
  ])('serves %p from view %s in order %s', async (overrides, view, sort, index) => {
    // Arrange
    ddb.on(GetCommand).resolves({ Item: { pk: 'x', sk: sort, ...encodeDirectory({ bounds: [''], counts: [1] }), version: 1 } });
    ddb.on(QueryCommand).resolves({ Items: [viewItem(RECORDS[0]!)] });

    // Act
    await listRepricers('c1', query(overrides));

    // Assert
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input.Key).toEqual({ pk: `T#c1#RDIR#${view}`, sk: sort });
    expect(queries()[0]?.IndexName).toBe(index);
    expect(queries()[0]?.ExpressionAttributeValues).toEqual({ ':pk': `T#c1#RV#${view}` });
  });

  it('answers a start past the end with the total and no Query', async () => {
    // Act
    const page = await listRepricers('c1', query({ start: 3 }));

    // Assert
    expect(page).toMatchObject({ total: 3, repricers: [] });
    expect(queries()).toHaveLength(0);
  });
});
