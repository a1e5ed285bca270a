import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';

import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../../lambdas/functions/delete-repricer/handler.js';
import { repricerSlotKey } from '../../../../lambdas/data/table/keys.js';
import { REPRICER_LIST } from '../../../../lambdas/data/repricers/list.js';
import { RETRY_ATTEMPTS } from '../../../../lambdas/data/table/retry.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { FakeTable, TABLE } from '../../data/fake-table.js';
import { repricer, storedRepricer } from '../../data/fixtures.js';
import { seedList } from '../../data/lists/ranked/seed-list.js';
import { apiEvent, CONTEXT, expectProblem } from '../../fixtures/api-events.js';
import { REPRICER_KEY, repricerItem } from '../../fixtures/repricers.js';

const ddb = mockClient(DynamoDBDocumentClient);
const SLOT_KEY = repricerSlotKey('c1', 'SKU-1', 'takealot');
let table: FakeTable;

const remove = (id: string, headers: Record<string, string> = {}) =>
  handler({ ...apiEvent({ method: 'DELETE', path: `/v1/repricers/${id}`, headers }), pathParameters: { id } }, CONTEXT);
const transactions = () => ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems ?? []);

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  table = new FakeTable([repricerItem(undefined, 2), { ...SLOT_KEY, entity: 'repricerSlot', repricerId: 7 }]).serve(ddb);
  seedList(table, 'c1', REPRICER_LIST, [storedRepricer({}, 2)], (stored) => stored.record, { bucketSize: 2, chunkSize: 2 });
  ddb.resetHistory();
});

describe('DELETE /v1/repricers/{id}', () => {
  it('answers 204 without a body, deleting the version read, its slot and its listing in one transaction', async () => {
    // Act
    const response = await remove('7');

    // Assert
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers?.['Content-Type']).toBeUndefined();
    const [item, slot, listing] = transactions()[0]!;
    expect(item?.Delete).toMatchObject({ Key: REPRICER_KEY, ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': 2 } });
    expect(slot?.Delete).toMatchObject({ Key: SLOT_KEY, ConditionExpression: 'repricerId = :id', ExpressionAttributeValues: { ':id': 7 } });
    expect(listing?.Delete).toMatchObject({ Key: { pk: 'T#c1#RL#on', sk: '00000007' } });
    expect(table.get(REPRICER_KEY)).toBeUndefined();
    expect(table.get(SLOT_KEY)).toBeUndefined();
    expect(table.partition('T#c1#RL#on')).toEqual([]);
  });

  it('answers If-Match that does not hold with 412, deleting nothing', async () => {
    expectProblem(await remove('7', { 'If-Match': '"v1"' }), 412);
    expect(transactions()).toHaveLength(0);
    expect(table.get(REPRICER_KEY)).toBeDefined();
  });

  it('deletes when If-Match names the current version', async () => {
    expect((await remove('7', { 'If-Match': '"v2"' })).statusCode).toBe(204);
  });

  it('answers 404 when a concurrent delete got there first', async () => {
    // Arrange: the other delete lands between this one's read and write
    let races = 1;
    table.intercept = (command) => {
      if (command === 'TransactWrite' && races-- > 0) table.delete(REPRICER_KEY);
    };

    // Act & Assert
    expectProblem(await remove('7'), 404);
    expect(transactions()).toHaveLength(1);
  });

  it('answers 412 when a concurrent change moved the version its If-Match named', async () => {
    // Arrange
    let races = 1;
    table.intercept = (command) => {
      if (command === 'TransactWrite' && races-- > 0) table.put(repricerItem(repricer({ enabled: false }), 3));
    };

    // Act & Assert
    expectProblem(await remove('7', { 'If-Match': '"v2"' }), 412);
    expect(table.get(REPRICER_KEY)?.version).toBe(3);
  });

  it(`answers 409 when every one of its ${RETRY_ATTEMPTS} attempts loses a race`, async () => {
    // Arrange
    let version = 2;
    table.intercept = (command) => {
      if (command === 'TransactWrite') table.put(repricerItem(repricer(), ++version));
    };

    // Act & Assert
    expectProblem(await remove('7'), 409, 'urn:repricer:problem:conflict');
    expect(transactions()).toHaveLength(RETRY_ATTEMPTS);
  });

  it('answers a missing or malformed id with the same 404', async () => {
    const missing = await remove('8');
    const malformed = await remove('seven');

    expectProblem(missing, 404);
    expect(malformed.body).toBe(missing.body);
    expect(transactions()).toHaveLength(0);
  });
});
