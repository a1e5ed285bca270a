import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';

import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../../lambdas/functions/get-product/handler.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { DEFAULT_IN_STOCK_PREMIUM } from '../../../../lambdas/domain/in-stock-premium.js';
import { product } from '../../data/fixtures.js';
import { connection, connectionItem } from '../../fixtures/market-events.js';
import { apiEvent, CONTEXT, expectProblem } from '../../fixtures/api-events.js';

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
  ddb.on(QueryCommand).resolves({ Items: [] });
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
    expect(JSON.parse(response.body)).toEqual({ ...record, in_stock_premium: {} });
  });

  it('shows the in-stock premium per connector: as learned where a page narrowed it, the stated default on the other connections', async () => {
    const record = product({ code: 'SKU-1' });
    const learned = { low_percent: 4.76, high_percent: 5.67, observations: 2 };
    ddb.on(GetCommand, { Key: { pk: 'T#c1#P#SKU-1', sk: 'PRODUCT' } }).resolves({ Item: { pk: 'T#c1#P#SKU-1', sk: 'PRODUCT', entity: 'product', record } });
    ddb.on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'T#c1#P#SKU-1', ':prefix': 'MARKET#' } }).resolves({
      Items: [
        {
          pk: 'T#c1#P#SKU-1',
          sk: 'MARKET#takealot',
          entity: 'productMarket',
          connector: 'takealot',
          market: { state: 'known', readAt: '2026-11-22T10:00:00.000Z' },
          premium: learned,
        },
        // Read, nothing narrowed yet: no premium stored.
        { pk: 'T#c1#P#SKU-1', sk: 'MARKET#other', entity: 'productMarket', connector: 'other', market: { state: 'known', readAt: '2026-11-22T10:00:00.000Z' } },
      ],
    });
    ddb
      .on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'T#c1#CONN', ':prefix': 'C#' } })
      .resolves({ Items: [connectionItem('c1', connection({ connector: 'takealot' })), connectionItem('c1', connection({ connector: 'amazon' }))] });

    const response = await get('SKU-1');

    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ ...record, in_stock_premium: { amazon: DEFAULT_IN_STOCK_PREMIUM, takealot: learned } });
  });

  it('answers a missing, undecodable or impossible code with the same 404', async () => {
    const missing = await get('SKU-9');
    const others = [await get('%E0%A4%A'), await get('x'.repeat(65))];

    expectProblem(missing, 404);
    for (const response of others) expect(response.body).toBe(missing.body);
    expect(ddb.commandCalls(GetCommand).map((call) => call.args[0].input.Key)).toEqual([{ pk: 'T#c1#P#SKU-9', sk: 'PRODUCT' }]);
  });
});
