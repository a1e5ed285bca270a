import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../../lambdas/functions/get-repricer/handler.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { repricer } from '../../data/fixtures.js';
import { apiEvent, CONTEXT, expectProblem } from '../../fixtures/api-events.js';
import { REPRICER_KEY, repricerItem } from '../../fixtures/repricers.js';

const ddb = mockClient(DynamoDBDocumentClient);
const get = (id: string, authorizer?: Record<string, string>) =>
  handler({ ...apiEvent({ path: `/v1/repricers/${id}`, ...(authorizer ? { authorizer } : {}) }), pathParameters: { id } }, CONTEXT);

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  ddb.on(GetCommand).resolves({});
});

describe('GET /v1/repricers/{id}', () => {
  it('answers 200 with the record and the ETag of its version, read consistently from the client partition', async () => {
    // Arrange
    ddb.on(GetCommand, { Key: REPRICER_KEY }).resolves({ Item: repricerItem(repricer(), 3) });

    // Act
    const response = await get('7');

    // Assert
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({ ETag: '"v3"', 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
    expect(JSON.parse(response.body)).toEqual(repricer());
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({ TableName: 'test-table', Key: REPRICER_KEY, ConsistentRead: true });
  });

  it('answers a missing id with 404', async () => {
    const response = await get('8');

    expectProblem(response, 404);
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input.Key).toEqual({ pk: 'T#c1#R#8', sk: 'REPRICER' });
  });

  it('looks only in the caller partition, so another client id is a 404 like a missing one', async () => {
    // Arrange: the item exists for c1 only
    ddb.on(GetCommand, { Key: REPRICER_KEY }).resolves({ Item: repricerItem() });

    // Act
    const foreign = await get('7', { clientId: 'c2', username: 'bob', sellerId: 's', defaultConnector: 'amazon' });
    const missing = await get('8');

    // Assert
    expectProblem(foreign, 404);
    expect(foreign.body).toBe(missing.body);
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input.Key).toEqual({ pk: 'T#c2#R#7', sk: 'REPRICER' });
  });

  it.each(['abc', '0', '007', '-7', '7.0', '99999999999999999999'])('answers the malformed id %p with the same 404, reading nothing', async (id) => {
    const response = await get(id);
    const missing = await get('8');

    expect(response.body).toBe(missing.body);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
  });

  it('answers 500 without details when the stored item is damaged', async () => {
    ddb.on(GetCommand, { Key: REPRICER_KEY }).resolves({ Item: { ...REPRICER_KEY, record: { id: 7 } } });

    const body = expectProblem(await get('7'), 500);

    expect(JSON.stringify(body)).not.toMatch(/REPRICER|T#c1|zod/i);
  });
});
