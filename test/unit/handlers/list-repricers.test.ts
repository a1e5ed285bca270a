import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../lambdas/list-repricers/handler.js';
import { encodeDirectory } from '../../../lambdas/shared/data/rank-store.js';
import { repricerViewItems } from '../../../lambdas/shared/data/repricer-items.js';
import { logger } from '../../../lambdas/shared/logger.js';
import { repricer } from '../data/fixtures.js';
import { apiEvent, CONTEXT, expectProblem } from './events.js';

const ddb = mockClient(DynamoDBDocumentClient);
const RECORDS = [1, 2, 3].map((id) => repricer({ id, enabled: id !== 2 }));
const viewItem = (id: number, view: string) => repricerViewItems('c1', RECORDS[id - 1]!).find((v) => v.view === view)!.item;

const list = (query?: Record<string, string[]>) => handler(apiEvent({ path: '/v1/repricers', query }), CONTEXT) as Promise<APIGatewayProxyResult>;
const single = (params: Record<string, string>) => Object.fromEntries(Object.entries(params).map(([name, value]) => [name, [value]]));
const givenDirectory = (view: string, sort: string, count: number) =>
  ddb.on(GetCommand, { Key: { pk: `T#c1#RDIR#${view}`, sk: sort } }).resolves({
    Item: { pk: `T#c1#RDIR#${view}`, sk: sort, entity: 'rankDirectory', ...encodeDirectory({ bounds: [''], counts: [count] }), version: 2 },
  });

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
});

describe('GET /v1/repricers', () => {
  it('answers 200 with every repricer by id and exact meta', async () => {
    // Arrange
    givenDirectory('*#*', 'id', 3);
    ddb.on(QueryCommand).resolves({ Items: [1, 2, 3].map((id) => viewItem(id, '*#*')) });

    // Act
    const response = await list();

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 3, limit: 100, start: 0 }, repricers: RECORDS });
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'T#c1#RV#*#*' }, ScanIndexForward: true, Limit: 3 });
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input.IndexName).toBeUndefined();
  });

  it('reads the view the filters name, in the order _sort names', async () => {
    // Arrange
    givenDirectory('true#=SKU-1', 'updated_at', 2);
    ddb.on(QueryCommand).resolves({ Items: [viewItem(3, 'true#=SKU-1')] });

    // Act
    const response = await list(single({ enabled: 'true', product_code: 'SKU-1', _sort: 'updated_at:DESC', _limit: '1' }));

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 2, limit: 1, start: 0 }, repricers: [RECORDS[2]] });
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      IndexName: 'byUpdated',
      ExpressionAttributeValues: { ':pk': 'T#c1#RV#true#=SKU-1' },
      ScanIndexForward: false,
      Limit: 1,
    });
  });

  it('answers a start past the end with an empty page and the exact total, without a page Query', async () => {
    givenDirectory('false#*', 'created_at', 1);

    const response = await list(single({ enabled: 'false', _sort: 'created_at', _start: '5' }));

    expect(JSON.parse(response.body)).toEqual({ meta: { total: 1, limit: 100, start: 5 }, repricers: [] });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it.each<[Record<string, string[]>, string]>([
    [single({ colour: 'red' }), 'colour'],
    [{ enabled: ['true', 'false'] }, 'enabled'],
    [single({ _limit: '0' }), '_limit'],
    [single({ _sort: 'offer_price' }), '_sort'],
    [single({ enabled: 'yes' }), 'enabled'],
  ])('answers %p with a 400 naming %s, reading nothing', async (query, field) => {
    const body = expectProblem(await list(query), 400, 'urn:repricer:problem:validation');

    expect((body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
    expect(ddb.calls()).toHaveLength(0);
  });
});
