import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../lambdas/get-product/handler.js';
import { logger } from '../../../lambdas/shared/logger.js';
import { product } from '../data/fixtures.js';
import { apiEvent, CONTEXT, expectProblem } from './events.js';

const ddb = mockClient(DynamoDBDocumentClient);

/** The code as API Gateway passes it: percent-encoded. */
const get = (code: string) => handler({ ...apiEvent({ path: `/v1/products/${code}` }), pathParameters: { code } }, CONTEXT);

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  ddb.on(GetCommand).resolves({});
});

describe('GET /v1/products/{code}', () => {
  it('answers 200 with the product of the client, found by its decoded code', async () => {
    // Arrange
    const record = product({ code: 'A B/1' });
    ddb
      .on(GetCommand, { Key: { pk: 'T#c1#P#A%20B%2F1', sk: 'PRODUCT' } })
      .resolves({ Item: { pk: 'T#c1#P#A%20B%2F1', sk: 'PRODUCT', entity: 'product', updatedAt: record.updated_at, record } });

    // Act
    const response = await get('A%20B%2F1');

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual(record);
  });

  it('answers a missing, undecodable or impossible code with the same 404', async () => {
    const missing = await get('SKU-9');
    const others = [await get('%E0%A4%A'), await get('x'.repeat(65))];

    expectProblem(missing, 404);
    for (const response of others) expect(response.body).toBe(missing.body);
    expect(ddb.commandCalls(GetCommand).map((call) => call.args[0].input.Key)).toEqual([{ pk: 'T#c1#P#SKU-9', sk: 'PRODUCT' }]);
  });
});
