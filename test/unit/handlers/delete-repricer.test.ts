import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../lambdas/delete-repricer/handler.js';
import { encodeDirectory } from '../../../lambdas/shared/data/rank-store.js';
import { logger } from '../../../lambdas/shared/logger.js';
import { apiEvent, CONTEXT, expectProblem } from './events.js';
import { REPRICER_KEY, repricerItem } from './repricer-fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
type Action = Record<string, { Key?: Record<string, unknown>; ConditionExpression?: string; ExpressionAttributeValues?: Record<string, unknown> }>;

const remove = (id: string, headers: Record<string, string> = {}) =>
  handler({ ...apiEvent({ method: 'DELETE', path: `/v1/repricers/${id}`, headers }), pathParameters: { id } }, CONTEXT) as Promise<APIGatewayProxyResult>;
const transactions = () => ddb.commandCalls(TransactWriteCommand).map((call) => (call.args[0].input.TransactItems ?? []) as Action[]);

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { Key: REPRICER_KEY }).resolves({ Item: repricerItem(undefined, 2) });
  ddb.on(BatchGetCommand).callsFake((request: { RequestItems: Record<string, { Keys: Record<string, string>[] }> }) => ({
    Responses: { 'test-table': request.RequestItems['test-table']!.Keys.map((key) => ({ ...key, ...encodeDirectory({ bounds: [''], counts: [1] }), version: 1 })) },
  }));
  ddb.on(TransactWriteCommand).resolves({});
});

describe('DELETE /v1/repricers/{id}', () => {
  it('answers 204 without a body, deleting the version read and freeing its slot in one transaction', async () => {
    // Act
    const response = await remove('7');

    // Assert
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers?.['Content-Type']).toBeUndefined();
    const [item, slot, ...rest] = transactions()[0]!;
    expect(item?.Delete).toMatchObject({ Key: REPRICER_KEY, ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': 2 } });
    expect(slot?.Delete).toMatchObject({ Key: { pk: 'T#c1#RSLOT#SKU-1#takealot', sk: 'SLOT' }, ConditionExpression: 'repricerId = :id', ExpressionAttributeValues: { ':id': 7 } });
    expect(rest.filter((a) => a.Delete)).toHaveLength(4);
    expect(rest.filter((a) => a.Put)).toHaveLength(12);
  });

  it('answers If-Match that does not hold with 412, deleting nothing', async () => {
    expectProblem(await remove('7', { 'If-Match': '"v1"' }), 412);
    expect(transactions()).toHaveLength(0);
  });

  it('deletes when If-Match names the current version', async () => {
    expect((await remove('7', { 'If-Match': '"v2"' })).statusCode).toBe(204);
  });

  it('answers 404 when a concurrent delete got there first', async () => {
    // Arrange
    ddb.on(GetCommand, { Key: REPRICER_KEY }).resolvesOnce({ Item: repricerItem(undefined, 2) }).resolves({});
    ddb.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }] }));

    // Act & Assert
    expectProblem(await remove('7'), 404);
    expect(transactions()).toHaveLength(1);
  });

  it('answers a missing or malformed id with the same 404', async () => {
    const missing = await remove('8');
    const malformed = await remove('seven');

    expectProblem(missing, 404);
    expect(malformed.body).toBe(missing.body);
    expect(transactions()).toHaveLength(0);
  });
});
