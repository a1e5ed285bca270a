import { jest } from '@jest/globals';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../../lambdas/functions/list-offers/handler.js';
import { OFFER_LIST, offerRecordOf } from '../../../../lambdas/data/offers/list.js';
import { OFFER_SORT_FIELDS } from '../../../../lambdas/domain/offer-query.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { FakeTable, TABLE } from '../../data/fake-table.js';
import { product, storedOffer } from '../../data/fixtures.js';
import { seedList } from '../../data/lists/ranked/seed-list.js';
import { apiEvent, CONTEXT, expectProblem } from '../../fixtures/api-events.js';

const ddb = mockClient(DynamoDBDocumentClient);
/** Own offers 1-5 with 1-5 competitors, prices falling as ids rise; offer 6 another seller's. */
const STORED = [1, 2, 3, 4, 5, 6].map((id) =>
  storedOffer(
    { offer_id: `OF-${id}`, total_competitors: id, offer_price: 100 - id, seller_id: id === 6 ? 'seller-x' : 'seller-own' },
    { id, scope: id === 6 ? 'other' : 'own' },
  ),
);
const OFFERS = STORED.map((offer) => offerRecordOf(offer, product()));
let table: FakeTable;

const list = (query?: Record<string, string[]>) => handler(apiEvent({ query }), CONTEXT);
const single = (params: Record<string, string>) => Object.fromEntries(Object.entries(params).map(([name, value]) => [name, [value]]));
const bodyOf = (response: APIGatewayProxyResult) => JSON.parse(response.body) as { meta: Record<string, number>; offers: { id: number }[] };

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  table = new FakeTable().serve(ddb);
  seedList(table, 'c1', OFFER_LIST, STORED, (offer) => offerRecordOf(offer, product()), { bucketSize: 2, chunkSize: 2 });
  ddb.resetHistory();
});

describe('GET /v1/offers', () => {
  it("answers 200 with the client's own offers by id, and exact meta", async () => {
    // Act
    const response = await list();

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['Content-Type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 5, limit: 100, start: 0 }, offers: OFFERS.slice(0, 5) });
  });

  it('answers with the requested window', async () => {
    const response = await list(single({ _limit: '2', _start: '1' }));
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 5, limit: 2, start: 1 }, offers: [OFFERS[1], OFFERS[2]] });
  });

  it('reads the cells and order the parameters name', async () => {
    // Act
    const response = await list(single({ _sort: 'offer_price:desc', competitiveness: 'winning', _include_other_offers: 'true', _limit: '6' }));

    // Assess
    expect(bodyOf(response).meta).toEqual({ total: 6, limit: 6, start: 0 });
    expect(bodyOf(response).offers.map((offer) => offer.id)).toEqual([1, 2, 3, 4, 5, 6]);
    const pages = ddb
      .commandCalls(QueryCommand)
      .slice(2)
      .map((call) => call.args[0].input);
    expect(pages.every((input) => input.IndexName === 'byPrice')).toBe(true);
    expect(pages.map((input) => input.ExpressionAttributeValues?.[':pk']).sort()).toEqual(['T#c1#OL#other|winning', 'T#c1#OL#own|winning']);
  });

  it('answers an empty page with the right total past the end', async () => {
    // Act
    const response = await list(single({ _start: '5' }));

    // Assess
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 5, limit: 100, start: 5 }, offers: [] });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(1);
  });

  it.each(OFFER_SORT_FIELDS.flatMap((field) => [`${field}:ASC`, `${field}:DESC`]))('serves total_competitors_gte with _sort=%s', async (sort) => {
    // Act: at least 3 competitors: own offers 3, 4, 5
    const response = await list(single({ total_competitors_gte: '3', _sort: sort }));

    // Assess
    expect(response.statusCode).toBe(200);
    const ids = bodyOf(response).offers.map((offer) => offer.id);
    expect(bodyOf(response).meta.total).toBe(3);
    expect([...ids].sort()).toEqual([3, 4, 5]);
  });

  it('sorts by id ascending with total_competitors_gte and no _sort', async () => {
    const response = await list(single({ total_competitors_gte: '2', _include_other_offers: 'true' }));
    expect(bodyOf(response).offers.map((offer) => offer.id)).toEqual([2, 3, 4, 5, 6]);
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

  it('answers 503 with Retry-After when the node read is throttled', async () => {
    // Arrange
    ddb.on(QueryCommand).rejects(Object.assign(new Error('Rate exceeded for table test-table'), { name: 'ThrottlingException' }));

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
    const [listing] = table.partition('T#c1#OL#own|winning');
    table.put({ ...listing, r: OFFER_LIST.codec.encode({ ...OFFERS[0]!, id: 'secret' } as never) });

    // Act
    const response = await list(single({ _limit: '1' }));

    // Assert
    expect(expectProblem(response, 500).detail).toBe('An unexpected error occurred.');
    expect(response.body).not.toContain('secret');
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
  });
});
