/**
 * Which routes honour `Idempotency-Key`: the route table's rule (isIdempotentRoute) names them,
 * and each one's handler must carry the middleware, or a retry would make a second effect. A
 * malformed key is refused before anything is read or written, so each handler is called here
 * without a table.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { isIdempotentRoute, ROUTES } from '../../../lambdas/config/routes.js';
import { logger } from '../../../lambdas/observability/logger.js';
import { apiEvent, CONTEXT } from '../fixtures/api-events.js';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const idempotent = ROUTES.filter(isIdempotentRoute);

beforeAll(() => {
  process.env.TABLE_NAME = 'idempotent-routes-test';
  logger.setLogLevel('SILENT');
});

describe('routes that honour Idempotency-Key', () => {
  it('are every POST a client makes that changes something: not the what-if preview, not the marketplace events', () => {
    expect(idempotent.map((route) => route.name).sort()).toEqual(
      ['ApplyPriceChange', 'CreateImport', 'CreateRepricer', 'CreateWebhook', 'ResumeConnection', 'SyncConnection'].sort(),
    );
    expect(ROUTES.filter((route) => route.method === 'POST' && !isIdempotentRoute(route)).map((route) => route.name)).toEqual([
      'PreviewNewRepricer',
      'ReceiveMarketplaceEvent',
    ]);
  });

  it.each(idempotent.map((route) => [route.name, route] as const))('%s checks the key: a malformed one is a 400 naming the header', async (_name, route) => {
    // Arrange
    const { handler } = (await import(`../../../${route.entry.replace(/\.ts$/, '.js')}`)) as { handler: Handler };
    const event = apiEvent({
      method: 'POST',
      path: route.path,
      headers: { 'Content-Type': route.name === 'CreateImport' ? 'application/x-ndjson' : 'application/json', 'Idempotency-Key': '' },
      body: '{}',
    });

    // Act
    const response = await handler(event, CONTEXT);

    // Assert
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key' })]);
  });
});
