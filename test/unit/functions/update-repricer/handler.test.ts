import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';

import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../../lambdas/functions/update-repricer/handler.js';
import { repricerSlotKey } from '../../../../lambdas/data/table/keys.js';
import { REPRICER_LIST } from '../../../../lambdas/data/repricers/list.js';
import { RETRY_ATTEMPTS } from '../../../../lambdas/data/table/retry.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { FakeTable, TABLE } from '../../data/fake-table.js';
import { product, productItem, repricer, storedRepricer } from '../../data/fixtures.js';
import { seedList } from '../../data/lists/ranked/seed-list.js';
import { apiEvent, CONTEXT, expectProblem } from '../../fixtures/api-events.js';
import { REPRICER_KEY, repricerItem } from '../../fixtures/repricers.js';

const ddb = mockClient(DynamoDBDocumentClient);
let table: FakeTable;

const patch = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  handler(
    {
      ...apiEvent({
        method: 'PATCH',
        path: `/v1/repricers/${id}`,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
      pathParameters: { id },
    },
    CONTEXT,
  );
const transactions = () => ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems ?? []);
/** Another request changes repricer 7 to `version`, with a min_profit of 3. */
const concurrentWrite = (version: number) => table.put(repricerItem(repricer({ min_profit: 3 }), version));

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  table = new FakeTable([
    repricerItem(),
    productItem(product()),
    { ...repricerSlotKey('c1', 'SKU-1', 'takealot'), entity: 'repricerSlot', repricerId: 7 },
  ]).serve(ddb);
  seedList(table, 'c1', REPRICER_LIST, [storedRepricer()], (stored) => stored.record, { bucketSize: 2, chunkSize: 2 });
  ddb.resetHistory();
});

describe('PATCH /v1/repricers/{id}', () => {
  it('answers 200 with the recomputed record and the next ETag, written only over the version read', async () => {
    // Act: instock fees F 5, r 0.15: 200 - 20 / 0.85 = 176.47.. -> 176.48
    const response = await patch('7', { preferred_price: 200 });

    // Assert
    expect(response.statusCode).toBe(200);
    expect(response.headers?.ETag).toBe('"v2"');
    const record = JSON.parse(response.body) as Record<string, unknown>;
    expect(record).toEqual({ ...repricer(), preferred_price: 200, min_price: 176.48, updated_at: expect.any(String) });
    expect(Date.parse(String(record.updated_at))).toBeGreaterThan(Date.parse(repricer().updated_at));
    expect(transactions()[0]![0]!.Put).toMatchObject({
      Item: { ...REPRICER_KEY, version: 2, record },
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': 1 },
    });
    expect(table.get(REPRICER_KEY)).toMatchObject({ version: 2, record });
  });

  it('moves the repricer to the disabled list at once', async () => {
    // Act
    await patch('7', { enabled: false });

    // Assert
    expect(table.partition('T#c1#RL#on')).toEqual([]);
    expect(table.partition('T#c1#RL#off').map((listing) => listing.sk)).toEqual(['00000007']);
  });

  it('prices with the stored product copy when the product no longer exists', async () => {
    // Arrange
    table.delete(productItem(product()));

    // Act
    const response = await patch('7', { enabled: false });

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ enabled: false, product: repricer().product, min_price: 76.48 });
  });

  it.each([['"v1"'], ['*'], ['"v0", "v1"']])('writes when If-Match %s holds', async (ifMatch) => {
    expect((await patch('7', { enabled: false }, { 'If-Match': ifMatch })).statusCode).toBe(200);
  });

  it.each([['"v2"'], ['W/"v1"']])('answers If-Match %s, which does not hold, with 412 and writes nothing', async (ifMatch) => {
    expectProblem(await patch('7', { enabled: false }, { 'If-Match': ifMatch }), 412);
    expect(transactions()).toHaveLength(0);
  });

  it('after losing a race, re-reads: with If-Match that is a 412', async () => {
    // Arrange: another write moves the repricer to version 2 between this request's read and write
    let races = 1;
    table.intercept = (command) => {
      if (command === 'TransactWrite' && races-- > 0) concurrentWrite(2);
    };

    // Act
    const response = await patch('7', { enabled: false }, { 'If-Match': '"v1"' });

    // Assert
    expectProblem(response, 412);
    expect(transactions()).toHaveLength(1);
    expect(table.get(REPRICER_KEY)?.version).toBe(2);
  });

  it('after losing a race, re-reads: without If-Match it applies the change to the new version', async () => {
    // Arrange
    let races = 1;
    table.intercept = (command) => {
      if (command === 'TransactWrite' && races-- > 0) concurrentWrite(2);
    };

    // Act
    const response = await patch('7', { enabled: false });

    // Assert
    expect(response.statusCode).toBe(200);
    expect(response.headers?.ETag).toBe('"v3"');
    expect(JSON.parse(response.body)).toMatchObject({ enabled: false, min_profit: 3 });
    expect(transactions()[1]![0]!.Put).toMatchObject({ ExpressionAttributeValues: { ':version': 2 } });
  });

  it(`answers 409 when every one of its ${RETRY_ATTEMPTS} attempts loses a race`, async () => {
    // Arrange
    let version = 1;
    table.intercept = (command) => {
      if (command === 'TransactWrite') concurrentWrite(++version);
    };

    // Act & Assert
    expectProblem(await patch('7', { enabled: false }), 409, 'urn:repricer:problem:conflict');
    expect(transactions()).toHaveLength(RETRY_ATTEMPTS);
  });

  it('answers a missing or malformed id with the same 404, and writes nothing', async () => {
    const missing = await patch('8', { enabled: false });
    const malformed = await patch('x', { enabled: false });

    expectProblem(missing, 404);
    expect(malformed.body).toBe(missing.body);
    expect(transactions()).toHaveLength(0);
  });

  it.each<[string, unknown, string]>([
    ['an empty body', {}, '(body)'],
    ['an unknown field', { enabled: true, id: 3 }, 'id'],
    ['a wrong type', { preferred_price: '5' }, 'preferred_price'],
  ])('answers %s with a 400 naming it, reading nothing', async (_case, body, field) => {
    const problem = expectProblem(await patch('7', body), 400, 'urn:repricer:problem:validation');

    expect((problem.errors as { field: string }[]).map((e) => e.field)).toContain(field);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers a profit the price cannot carry with 422, and writes nothing', async () => {
    expectProblem(await patch('7', { preferred_price: 10 }), 422, 'urn:repricer:problem:unprocessable');
    expect(transactions()).toHaveLength(0);
  });

  it('answers a malformed If-Match with 400', async () => {
    expectProblem(await patch('7', { enabled: false }, { 'If-Match': 'v1' }), 400, 'urn:repricer:problem:validation');
  });

  it('answers a body that is not JSON with 415, or not valid JSON with 400', async () => {
    expectProblem(await patch('7', { enabled: false }, { 'Content-Type': 'text/plain' }), 415);
    expectProblem(await patch('7', '{"enabled": '), 400);
  });
});
