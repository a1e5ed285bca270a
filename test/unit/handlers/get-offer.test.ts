import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../lambdas/get-offer/handler.js';
import { viewItems } from '../../../lambdas/shared/data/offer-items.js';
import { logger } from '../../../lambdas/shared/logger.js';
import { offer } from '../data/fixtures.js';
import { apiEvent, CONTEXT, expectProblem } from './events.js';

const ddb = mockClient(DynamoDBDocumentClient);
const OFFER = offer({ id: 42, seller_id: 'seller-other' });
const ALL_VIEW_KEY = { pk: 'T#c1#OV#ALL#*', sk: '00000016' };

const get = (id: string) => handler({ ...apiEvent({ path: `/v1/offers/${id}` }), pathParameters: { id } }, CONTEXT) as Promise<APIGatewayProxyResult>;

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  ddb.on(GetCommand).resolves({});
});

describe('GET /v1/offers/{id}', () => {
  it('answers 200 with the offer, product nested, from the client unfiltered view', async () => {
    // Arrange
    ddb.on(GetCommand, { Key: ALL_VIEW_KEY }).resolves({ Item: viewItems('c1', OFFER, 'seller-own').find((v) => v.view === 'ALL#*')!.item });

    // Act
    const response = await get('42');

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual(OFFER);
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({ TableName: 'test-table', Key: ALL_VIEW_KEY });
  });

  it('answers a missing, malformed or unkeyable id with the same 404', async () => {
    const missing = await get('43');
    const others = [await get('x'), await get('0'), await get('4e1'), await get(String(36 ** 8))];

    expectProblem(missing, 404);
    for (const response of others) expect(response.body).toBe(missing.body);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
  });
});
