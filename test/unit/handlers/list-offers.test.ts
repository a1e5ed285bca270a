import { jest } from '@jest/globals';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../lambdas/list-offers/handler.js';
import { SUPPORTED_COMBINATIONS } from '../../../lambdas/shared/domain/offer-query.js';
import { viewItems } from '../../../lambdas/shared/data/offer-items.js';
import { idKey } from '../../../lambdas/shared/data/offer-keys.js';
import { encodeDirectory } from '../../../lambdas/shared/data/rank-store.js';
import { logger } from '../../../lambdas/shared/logger.js';
import { offer } from '../data/fixtures.js';
import { apiEvent, CONTEXT, expectProblem } from './events.js';

const ddb = mockClient(DynamoDBDocumentClient);
const OFFERS = [1, 2, 3, 4, 5].map((id) => offer({ id, offer_id: `OF-${id}`, total_competitors: id }));
const viewItem = (id: number, view = 'OWN#*') => viewItems('c1', OFFERS[id - 1]!, 'seller-own').find((v) => v.view === view)!.item;

const list = (query?: Record<string, string[]>) => handler(apiEvent({ query }), CONTEXT) as Promise<APIGatewayProxyResult>;
const single = (params: Record<string, string>) => Object.fromEntries(Object.entries(params).map(([name, value]) => [name, [value]]));

/** The OWN#* view: 5 offers in two buckets, [1, 2, 3] and [4, 5]. */
const givenDirectory = (view = 'OWN#*', sort = 'id') =>
  ddb.on(GetCommand, { Key: { pk: `T#c1#ODIR#${view}`, sk: sort } }).resolves({
    Item: { pk: `T#c1#ODIR#${view}`, sk: sort, entity: 'rankDirectory', ...encodeDirectory({ bounds: ['', idKey(4)], counts: [3, 2] }), version: 2 },
  });

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
});

describe('GET /v1/offers', () => {
  it('answers 200 with the default page and exact meta', async () => {
    // Arrange
    givenDirectory();
    ddb.on(QueryCommand).resolves({ Items: [1, 2, 3, 4, 5].map((id) => viewItem(id)) });

    // Act
    const response = await list();

    // Assert
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['Content-Type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 5, limit: 100, start: 0 }, offers: OFFERS });
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({ ExpressionAttributeValues: { ':pk': 'T#c1#OV#OWN#*' }, Limit: 5 });
  });

  it('answers with the requested window: _limit=2&_start=1 steps to the second key', async () => {
    // Arrange
    givenDirectory();
    ddb.on(QueryCommand, { IndexName: 'rankById' }).resolves({ Items: [{ idKey: idKey(1) }, { idKey: idKey(2) }] });
    ddb.on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'T#c1#OV#OWN#*', ':key': idKey(2) } }).resolves({ Items: [viewItem(2), viewItem(3)] });

    // Act
    const response = await list(single({ _limit: '2', _start: '1' }));

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 5, limit: 2, start: 1 }, offers: [OFFERS[1], OFFERS[2]] });
    expect(ddb.calls()).toHaveLength(3);
  });

  it('reads the view and order the parameters name', async () => {
    // Arrange
    givenDirectory('ALL#=winning', 'offer_price');
    ddb.on(QueryCommand).resolves({ Items: [viewItem(5, 'ALL#=winning')] });

    // Act
    const response = await list(single({ _sort: 'offer_price:desc', competitiveness: 'winning', _include_other_offers: 'true', _limit: '1' }));

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body).meta).toEqual({ total: 5, limit: 1, start: 0 });
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      IndexName: 'byPrice',
      ScanIndexForward: false,
      ExpressionAttributeValues: { ':pk': 'T#c1#OV#ALL#=winning' },
      Limit: 1,
    });
  });

  it('answers an empty page with the right total past the end', async () => {
    // Arrange
    givenDirectory();

    // Act
    const response = await list(single({ _start: '5' }));

    // Assert
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 5, limit: 100, start: 5 }, offers: [] });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('answers 400 for a repeated parameter, naming it', async () => {
    // Act
    const response = await list({ _limit: ['1', '2'] });

    // Assert
    const problem = expectProblem(response, 400, 'urn:repricer:problem:validation');
    expect(problem).toMatchObject({
      title: 'Bad Request',
      detail: 'The query parameters are not valid.',
      errors: [{ field: '_limit', message: 'This parameter may be given only once.' }],
    });
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers 400 for an unknown parameter, naming it', async () => {
    // Act
    const response = await list(single({ page: '2' }));

    // Assert
    const problem = expectProblem(response, 400, 'urn:repricer:problem:validation');
    expect(problem.errors).toEqual([{ field: 'page', message: 'Unknown field; it is not accepted here.' }]);
    expect(ddb.calls()).toHaveLength(0);
  });

  it.each<[string, string, string]>([
    ['_limit', '0', '_limit must be an integer between 1 and 100.'],
    ['_limit', '101', '_limit must be an integer between 1 and 100.'],
    ['_start', '-1', '_start must be an integer between 0 and 1000000000.'],
    ['_sort', 'price', '_sort must be one of id, total_competitors, offer_price, updated_at, optionally followed by :ASC or :DESC.'],
    ['_include_other_offers', 'yes', '_include_other_offers must be true or false.'],
    ['competitiveness', '', 'competitiveness must not be empty.'],
  ])('answers 400 for %s=%p with the allowed values', async (name, value, message) => {
    // Act
    const response = await list(single({ [name]: value }));

    // Assert
    const problem = expectProblem(response, 400, 'urn:repricer:problem:validation');
    expect(problem.errors).toContainEqual({ field: name, message });
  });

  it('answers 400 for a filter and sort that no index serves', async () => {
    // Act
    const response = await list(single({ total_competitors_gte: '3', _sort: 'offer_price' }));

    // Assert
    const problem = expectProblem(response, 400, 'urn:repricer:problem:validation');
    expect(problem).toMatchObject({
      detail: 'This combination of filter and sort is not supported.',
      errors: [{ field: '_sort', message: SUPPORTED_COMBINATIONS }],
    });
    expect(ddb.calls()).toHaveLength(0);
  });

  it('counts total_competitors_gte from the histogram', async () => {
    // Arrange: competitors 1..5; at least 3 -> offers 3, 4, 5
    ddb.on(GetCommand, { Key: { pk: 'T#c1#ODIR#OWN#*', sk: 'total_competitors' } }).resolves({
      Item: { ...encodeDirectory({ bounds: [''], counts: [5], histogram: { '0001': 1, '0002': 1, '0003': 1, '0004': 1, '0005': 1 } }), version: 1 },
    });
    ddb.on(QueryCommand, { IndexName: 'rankByCompetitors' }).resolves({ Items: [{ tcKey: '0001' }, { tcKey: '0002' }, { tcKey: '0003' + idKey(3) }] });
    ddb.on(QueryCommand, { IndexName: 'byCompetitors' }).resolves({ Items: [3, 4, 5].map((id) => viewItem(id)) });

    // Act
    const response = await list(single({ total_competitors_gte: '3' }));

    // Assert
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 3, limit: 100, start: 0 }, offers: OFFERS.slice(2) });
    expect(ddb.commandCalls(QueryCommand, { IndexName: 'byCompetitors' })[0]?.args[0].input).toMatchObject({ Limit: 3, ExpressionAttributeValues: { ':key': '0003' + idKey(3) } });
  });

  it('answers 503 with Retry-After when the directory read is throttled', async () => {
    // Arrange
    ddb.on(GetCommand).rejects(Object.assign(new Error('Rate exceeded for table test-table'), { name: 'ThrottlingException' }));

    // Act
    const response = await list();

    // Assert
    expectProblem(response, 503);
    expect(response.headers?.['Retry-After']).toBe('1');
    expect(response.body).not.toContain('test-table');
  });

  it('answers a generic 500 when a stored item is corrupt, without details', async () => {
    // Arrange
    const logged = jest.spyOn(logger, 'error');
    givenDirectory();
    ddb.on(QueryCommand).resolves({ Items: [{ pk: 'T#c1#OV#OWN#*', sk: idKey(1), record: { id: 'secret' } }] });

    // Act
    const response = await list(single({ _limit: '1' }));

    // Assert
    expect(expectProblem(response, 500).detail).toBe('An unexpected error occurred.');
    expect(response.body).not.toContain('secret');
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
  });
});
