import { jest } from '@jest/globals';
import { ProvisionedThroughputExceededException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../../lambdas/functions/create-repricer/handler.js';
import type { Product } from '../../../../lambdas/domain/records.js';
import { RETRY_ATTEMPTS } from '../../../../lambdas/data/table/retry.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { connectorType, feeEstimate, product } from '../../data/fixtures.js';
import { apiEvent, CONTEXT, expectProblem } from '../../fixtures/api-events.js';

const ddb = mockClient(DynamoDBDocumentClient);
const PRODUCT_KEY = { pk: 'T#c1#P#SKU-1', sk: 'PRODUCT' };
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const post = (body: unknown, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
  handler(apiEvent({ method: 'POST', path: '/v1/repricers/', headers, body: typeof body === 'string' ? body : JSON.stringify(body) }), CONTEXT);

const givenProduct = (record: Product = product()) =>
  ddb.on(GetCommand, { Key: PRODUCT_KEY }).resolves({ Item: { ...PRODUCT_KEY, entity: 'product', updatedAt: record.updated_at, record } });
const givenConnector = (uid: string) =>
  ddb.on(GetCommand, { Key: { pk: `CONNECTOR#${uid}`, sk: 'CONNECTOR' } }).resolves({
    Item: { pk: `CONNECTOR#${uid}`, sk: 'CONNECTOR', entity: 'connectorType', record: connectorType({ uid, name: uid }) },
  });

const body = { product_code: 'SKU-1', preferred_price: 100, preferred_profit: 20 };

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  ddb.on(UpdateCommand).resolves({ Attributes: { value: 7 } });
  ddb.on(TransactWriteCommand).resolves({});
  // No rank node exists yet: the repricer's listing starts them.
  ddb.on(QueryCommand).resolves({ Items: [] });
});

describe('POST /v1/repricers/', () => {
  it('creates the repricer: 201, Location and the full record', async () => {
    // Arrange
    givenProduct();
    givenConnector('takealot');

    // Act
    const response = await post(body);

    // Assert
    expect(response.statusCode).toBe(201);
    expect(response.headers).toMatchObject({ Location: '/v1/repricers/7', ETag: '"v1"', 'Content-Type': 'application/json; charset=utf-8' });
    const record = JSON.parse(response.body) as Record<string, unknown>;
    expect(record).toEqual({
      id: 7,
      uid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      buybox_approach: 'cheapest',
      repricer_approach: 'fixed',
      enabled: true,
      preferred_price: 100,
      preferred_profit: 20,
      // C = 100 - 15 - 5 - 20 = 60; (60 + 5 + 0) / 0.85 = 76.47.. -> 76.48
      min_price: 76.48,
      min_profit: 0,
      fixed_fulfilment_fee: 5,
      unit_cost: null,
      exclude_seller_ids: [],
      min_competitor_rating: null,
      competitor_stock: 'any',
      max_competitor_leadtime_days: null,
      price_war_guard: null,
      connector_type: connectorType({ uid: 'takealot', name: 'takealot' }),
      product: product(),
      created_at: expect.stringMatching(ISO_MILLIS),
      updated_at: expect.stringMatching(ISO_MILLIS),
    });
    expect(record.created_at).toBe(record.updated_at);
    const stored = ddb.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems?.[0]?.Put?.Item;
    expect(stored).toMatchObject({ pk: 'T#c1#R#7', record });
  });

  it('prices with the lead-time fees and min_profit, and keeps the given flags', async () => {
    // Arrange
    givenProduct(product({ soh: 0 }));
    givenConnector('takealot');

    // Act
    const response = await post({ ...body, min_profit: 4, enabled: false, connector: 'takealot' });

    // Assert
    expect(response.statusCode).toBe(201);
    // leadtime: r = 0.2, F = 8; C = 100 - 20 - 8 - 20 = 52; (52 + 8 + 4) / 0.8 = 80
    expect(JSON.parse(response.body)).toMatchObject({ min_price: 80, min_profit: 4, fixed_fulfilment_fee: 8, enabled: false });
  });

  it("uses the client's default connector for a product without fee estimates", async () => {
    // Arrange
    givenProduct(product({ fee_estimates: null }));
    givenConnector('amazon');

    // Act
    const response = await post(body);

    // Assert
    expect(response.statusCode).toBe(201);
    expect(JSON.parse(response.body)).toMatchObject({ min_price: 80, fixed_fulfilment_fee: 0, connector_type: { uid: 'amazon' } });
    expect(ddb.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems?.[1]?.Put?.Item).toMatchObject({ pk: 'T#c1#P#SKU-1', sk: 'SLOT#amazon' });
  });

  it('answers 404 for a product the client does not have', async () => {
    // Arrange
    ddb.on(GetCommand, { Key: PRODUCT_KEY }).resolves({});

    // Act
    const response = await post(body);

    // Assert
    const problem = expectProblem(response, 404);
    expect(problem).toMatchObject({ title: 'Not Found', detail: 'No product with code "SKU-1" exists for this client.' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('answers 400 listing the choices when the product has several connectors and none is named', async () => {
    // Arrange
    const estimates = {
      takealot: { instock: feeEstimate(5, 15), leadtime: feeEstimate(5, 15) },
      amazon: { instock: feeEstimate(3, 8), leadtime: feeEstimate(3, 8) },
    };
    givenProduct(product({ fee_estimates: estimates }));

    // Act
    const response = await post(body);

    // Assert
    const problem = expectProblem(response, 400, 'urn:repricer:problem:validation');
    expect(problem.errors).toEqual([{ field: 'connector', message: 'The product is sold on several connectors; name one in "connector": amazon, takealot.' }]);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('answers 409 naming the id of the repricer that holds the slot', async () => {
    // Arrange
    givenProduct();
    givenConnector('takealot');
    ddb.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Item: { repricerId: { N: '4' } } }],
      }),
    );

    // Act
    const response = await post(body);

    // Assert
    const problem = expectProblem(response, 409, 'urn:repricer:problem:conflict');
    expect(problem).toMatchObject({ title: 'Conflict', existing_id: 4, detail: 'A repricer for this product and connector already exists: 4.' });
  });

  it.each<[string, Record<string, unknown>, string]>([
    // 100 - 90 / 0.85 = -5.88..
    [
      'a profit the price cannot carry',
      { preferred_profit: 90 },
      'The preferred profit is larger than the preferred price can carry: the minimum price would not be positive.',
    ],
    ['min_profit above preferred_profit', { min_profit: 25 }, 'min_profit must not exceed preferred_profit.'],
  ])('answers 422 for %s', async (_case, overrides, detail) => {
    // Arrange
    givenProduct();
    givenConnector('takealot');

    // Act
    const response = await post({ ...body, ...overrides });

    // Assert
    expect(expectProblem(response, 422, 'urn:repricer:problem:unprocessable')).toMatchObject({ title: 'Unprocessable Content', detail });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('answers 422 when the chosen connector is not a known connector type', async () => {
    // Arrange
    givenProduct();
    ddb.on(GetCommand, { Key: { pk: 'CONNECTOR#takealot', sk: 'CONNECTOR' } }).resolves({});

    // Act
    const response = await post(body);

    // Assert
    expect(expectProblem(response, 422, 'urn:repricer:problem:unprocessable').detail).toBe('The connector "takealot" is not a known connector type.');
  });

  it.each<[string, unknown, string]>([
    ['an unknown field', { ...body, price: 5 }, 'price'],
    ['a string for a number', { ...body, preferred_price: '12' }, 'preferred_price'],
    ['three decimals', { ...body, preferred_profit: 1.234 }, 'preferred_profit'],
    ['a missing product code', { preferred_price: 100, preferred_profit: 20 }, 'product_code'],
    ['a JSON array', [body], '(body)'],
  ])('answers 400 naming the field for %s, before reading anything', async (_case, payload, field) => {
    // Act
    const response = await post(payload);

    // Assert
    const problem = expectProblem(response, 400, 'urn:repricer:problem:validation');
    expect((problem.errors as { field: string }[]).map((e) => e.field)).toContain(field);
    expect(ddb.calls()).toHaveLength(0);
  });

  it.each<[string, Record<string, string>, string, number, string]>([
    ['a text/plain body', { 'Content-Type': 'text/plain' }, JSON.stringify(body), 415, 'Unsupported Media Type'],
    ['malformed JSON', { 'Content-Type': 'application/json' }, '{"product_code": "SKU-1",', 400, 'Bad Request'],
    ['a 17 KiB body', { 'Content-Type': 'application/json' }, JSON.stringify({ ...body, note: 'x'.repeat(17 * 1024) }), 413, 'Content Too Large'],
  ])('answers %s with %s', async (_case, headers, payload, status, title) => {
    // Act
    const response = await post(payload, headers);

    // Assert
    expect(expectProblem(response, status).title).toBe(title);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers 503 with Retry-After when DynamoDB keeps throttling', async () => {
    // Arrange
    ddb.on(GetCommand).rejects(new ProvisionedThroughputExceededException({ message: 'Throughput exceeds capacity for table test-table', $metadata: {} }));

    // Act
    const response = await post(body);

    // Assert
    expectProblem(response, 503);
    expect(response.headers?.['Retry-After']).toBe('1');
    expect(response.body).not.toMatch(/test-table|Throughput|Exception/);
  });

  it("answers 503 with Retry-After when the write keeps losing races with the client's other writes", async () => {
    // Arrange: a rank node the write counts into is changed by another writer every time
    givenProduct();
    givenConnector('takealot');
    ddb.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'None' }, { Code: 'TransactionConflict' }],
      }),
    );

    // Act
    const response = await post(body);

    // Assert
    expectProblem(response, 503);
    expect(response.headers?.['Retry-After']).toBe('1');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(RETRY_ATTEMPTS);
  });

  it('answers a generic 500 that does not leak the error', async () => {
    // Arrange
    const logged = jest.spyOn(logger, 'error');
    givenProduct();
    givenConnector('takealot');
    ddb.on(TransactWriteCommand).rejects(new Error('secret table xyz'));

    // Act
    const response = await post(body);

    // Assert
    expect(expectProblem(response, 500).detail).toBe('An unexpected error occurred.');
    expect(response.body).not.toContain('secret');
    expect(response.body).not.toContain('xyz');
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
  });

  it('answers 500 when the request did not pass the authorizer', async () => {
    // Act
    const response = await handler(
      apiEvent({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), authorizer: null }),
      CONTEXT,
    );

    // Assert
    expectProblem(response, 500);
    expect(ddb.calls()).toHaveLength(0);
  });
});
