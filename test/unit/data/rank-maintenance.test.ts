import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { MAX_BUCKET } from '../../../lambdas/shared/domain/rank-directory.js';
import { collectKeyMoves, directoryActions, type KeyDelta } from '../../../lambdas/shared/data/rank-maintenance.js';
import { encodeDirectory } from '../../../lambdas/shared/data/rank-store.js';
import { REPRICER_RANK_ORDERS } from '../../../lambdas/shared/data/repricer-keys.js';

const ddb = mockClient(DynamoDBDocumentClient);
const key = (n: number) => n.toString(36).padStart(8, '0');

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
});

describe('collectKeyMoves', () => {
  it('records removals and insertions per directory, and nothing for an unchanged key', () => {
    // Arrange
    const deltas = new Map<string, KeyDelta>([['a|id', { inserted: ['k0'], removed: [] }]]);

    // Act
    collectKeyMoves(
      new Map([['a|id', 'k1'], ['a|updated_at', 'u1'], ['gone|id', 'k1']]),
      new Map([['a|id', 'k1'], ['a|updated_at', 'u2'], ['new|id', 'k1']]),
      deltas,
    );

    // Assert
    expect(Object.fromEntries(deltas)).toEqual({
      'a|id': { inserted: ['k0'], removed: [] },
      'a|updated_at': { inserted: ['u2'], removed: ['u1'] },
      'gone|id': { inserted: [], removed: ['k1'] },
      'new|id': { inserted: ['k1'], removed: [] },
    });
  });
});

describe('directoryActions for a repricer order', () => {
  it('starts a missing directory only if it is still missing', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({});

    // Act
    const actions = await directoryActions('c1', [{ view: '*#*', order: REPRICER_RANK_ORDERS.created_at, delta: { inserted: ['x'], removed: [] } }]);

    // Assert
    expect(ddb.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems).toEqual({
      'test-table': { Keys: [{ pk: 'T#c1#RDIR#*#*', sk: 'created_at' }], ConsistentRead: true },
    });
    expect(actions).toEqual([
      {
        Put: {
          TableName: 'test-table',
          Item: { pk: 'T#c1#RDIR#*#*', sk: 'created_at', entity: 'rankDirectory', bounds: '', counts: '1', version: 1 },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
  });

  it('splits a bucket that outgrows its bound, reading its keys from the order rank LSI', async () => {
    // Arrange: a full bucket of MAX_BUCKET keys, one more inserted
    const stored = Array.from({ length: MAX_BUCKET }, (_, i) => key(2 * i));
    ddb.on(BatchGetCommand).resolves({
      Responses: { 'test-table': [{ pk: 'T#c1#RDIR#true#*', sk: 'id', ...encodeDirectory({ bounds: [''], counts: [MAX_BUCKET] }), version: 7 }] },
    });
    ddb.on(QueryCommand).resolves({ Items: stored.map((idKey) => ({ idKey })) });

    // Act
    const actions = await directoryActions('c1', [{ view: 'true#*', order: REPRICER_RANK_ORDERS.id, delta: { inserted: [key(1)], removed: [] } }]);

    // Assert
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      IndexName: 'rankById',
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'T#c1#RV#true#*' },
      ConsistentRead: true,
    });
    const put = actions[0]?.Put as { Item: { counts: string; bounds: string; version: number }; ExpressionAttributeValues: unknown };
    // 257 keys in three parts of about TARGET_BUCKET; key(1) is the second, so part 2 starts at key(2 * 85).
    expect(put.Item.counts.split(',').map(Number)).toEqual([86, 86, 85]);
    expect(put.Item.bounds.split(',').slice(1)).toEqual([key(2 * 85), key(2 * 171)]);
    expect(put.Item.version).toBe(8);
    expect(put.ExpressionAttributeValues).toEqual({ ':version': 7 });
  });
});
