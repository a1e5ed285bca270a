import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import type { BucketPosition, RankDirectory } from '../../../lambdas/shared/domain/rank-directory.js';
import { decodeDirectory, encodeDirectory, keyAtPosition, keysInBucket, readDirectory } from '../../../lambdas/shared/data/rank-store.js';
import { ReadStats } from '../../../lambdas/shared/data/read-stats.js';
import { fcParameters } from '../../support/seed.js';

const ddb = mockClient(DynamoDBDocumentClient);
const PARTITION = 'T#c1#OV#OWN#*';
const queries = () => ddb.commandCalls(QueryCommand).map((call) => call.args[0].input);
const bucket = (overrides: Partial<BucketPosition>): BucketPosition => ({ index: 1, before: 10, count: 10, lower: 'k10', upper: 'k20', offset: 0, ...overrides });

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
});

describe('encodeDirectory / decodeDirectory', () => {
  it('stores compact strings', () => {
    expect(encodeDirectory({ bounds: ['', '0005000000a1', '000a00000003'], counts: [130, 129, 7], histogram: { '000a': 7, '0005': 200, '0000': 59 } })).toEqual({
      bounds: ',0005000000a1,000a00000003',
      counts: '130,129,7',
      histogram: '0000:59;0005:200;000a:7',
    });
    expect(encodeDirectory({ bounds: [''], counts: [0] })).toEqual({ bounds: '', counts: '0' });
    expect(encodeDirectory({ bounds: [''], counts: [0], histogram: {} })).toEqual({ bounds: '', counts: '0', histogram: '' });
  });

  it.each<[string, RankDirectory]>([
    ['an empty directory', { bounds: [''], counts: [0] }],
    ['an empty directory with histogram', { bounds: [''], counts: [0], histogram: {} }],
    ['several buckets', { bounds: ['', '00000081', '00000102'], counts: [128, 129, 3] }],
    ['a histogram', { bounds: ['', '0003000000zz'], counts: [4, 200], histogram: { '0000': 1, '0002': 3, '0003': 200 } }],
  ])('round-trips %s with its version', (_case, directory) => {
    expect(decodeDirectory({ pk: 'x', sk: 'id', ...encodeDirectory(directory), version: 5 }, 'id')).toEqual({ directory, version: 5 });
  });

  it('round-trips any directory of base-36 keys', () => {
    const key = fc.stringMatching(/^[0-9a-z]{8}$/);
    fc.assert(
      fc.property(fc.uniqueArray(key, { maxLength: 30 }), fc.dictionary(fc.stringMatching(/^[0-9a-z]{4}$/), fc.integer({ min: 1, max: 1e6 })), (keys, histogram) => {
        const bounds = ['', ...[...keys].sort()];
        const directory: RankDirectory = { bounds, counts: bounds.map((_, i) => i + 1), histogram };
        expect(decodeDirectory({ ...encodeDirectory(directory), version: 1 }, 'total_competitors').directory).toEqual(directory);
      }),
      fcParameters(),
    );
  });

  it.each([
    ['total_competitors', { bounds: [''], counts: [0], histogram: {} }],
    ['id', { bounds: [''], counts: [0] }],
    ['offer_price', { bounds: [''], counts: [0] }],
  ] as const)('a missing %s directory is empty at version 0', (sort, directory) => {
    expect(decodeDirectory(undefined, sort)).toEqual({ directory, version: 0 });
  });

  it('refuses an item without a version', () => {
    expect(() => decodeDirectory({ bounds: '', counts: '0' }, 'id')).toThrow();
  });
});

describe('readDirectory', () => {
  it('reads the directory of one view and sort consistently and records the round trip', async () => {
    // Arrange
    ddb.on(GetCommand).resolves({
      Item: { pk: 'T#c1#ODIR#OWN#*', sk: 'offer_price', ...encodeDirectory({ bounds: ['', 'b'], counts: [1, 2] }), version: 3 },
      ConsumedCapacity: { TableName: 'test-table', CapacityUnits: 1 },
    });
    const stats = new ReadStats();

    // Act
    const read = await readDirectory('c1', 'OWN#*', 'offer_price', stats);

    // Assert
    expect(read).toEqual({ directory: { bounds: ['', 'b'], counts: [1, 2] }, version: 3 });
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: 'test-table',
      Key: { pk: 'T#c1#ODIR#OWN#*', sk: 'offer_price' },
      ConsistentRead: true,
      ReturnConsumedCapacity: 'TOTAL',
    });
    expect(stats).toMatchObject({ roundTrips: 1, capacityUnits: 1 });
  });
});

describe('keyAtPosition', () => {
  it('steps forward from the lower bound when the key is in the first half', async () => {
    // Arrange: offset 3 of 10 -> read 4 keys from "k10"
    ddb.on(QueryCommand).resolves({ Items: ['k10', 'k11', 'k12', 'k13'].map((k) => ({ pk: PARTITION, sk: k, priceKey: k })) });

    // Act
    const key = await keyAtPosition('c1', 'OWN#*', 'offer_price', bucket({ offset: 3 }));

    // Assert
    expect(key).toBe('k13');
    expect(queries()).toEqual([
      {
        TableName: 'test-table',
        IndexName: 'rankByPrice',
        KeyConditionExpression: 'pk = :pk AND #rank >= :from',
        ExpressionAttributeValues: { ':pk': PARTITION, ':from': 'k10' },
        ExpressionAttributeNames: { '#rank': 'priceKey' },
        ScanIndexForward: true,
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
        Limit: 4,
      },
    ]);
  });

  it('steps backward from the upper bound when the key is in the second half', async () => {
    // Arrange: offset 7 of 10 -> read 3 keys below "k20", descending: k19, k18, k17
    ddb.on(QueryCommand).resolves({ Items: ['k19', 'k18', 'k17'].map((k) => ({ pk: PARTITION, sk: 'x', tcKey: k })) });
    const stats = new ReadStats();

    // Act
    const key = await keyAtPosition('c1', 'OWN#*', 'total_competitors', bucket({ offset: 7 }), stats);

    // Assert
    expect(key).toBe('k17');
    expect(queries()[0]).toMatchObject({
      IndexName: 'rankByCompetitors',
      KeyConditionExpression: 'pk = :pk AND #rank < :below',
      ExpressionAttributeValues: { ':pk': PARTITION, ':below': 'k20' },
      ExpressionAttributeNames: { '#rank': 'tcKey' },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: 3,
    });
    expect(stats.roundTrips).toBe(1);
  });

  it.each<[string, Partial<BucketPosition>, boolean, number]>([
    ['the middle of an even bucket (offset 4 of 10)', { offset: 4 }, true, 5],
    ['just past the middle (offset 5 of 10)', { offset: 5 }, false, 5],
    ['the middle of an odd bucket (offset 5 of 11)', { offset: 5, count: 11 }, true, 6],
    ['the last key (offset 9 of 10)', { offset: 9 }, false, 1],
  ])('reads at most half a bucket: %s', async (_case, position, forward, limit) => {
    // Arrange
    ddb.on(QueryCommand).resolves({ Items: Array.from({ length: limit }, (_, i) => ({ idKey: `k${i}` })) });

    // Act
    await keyAtPosition('c1', 'OWN#*', 'id', bucket(position));

    // Assert
    expect(queries()[0]).toMatchObject({ IndexName: 'rankById', ScanIndexForward: forward, Limit: limit });
  });

  it('reads from the start of the partition in the first bucket', async () => {
    // Arrange
    ddb.on(QueryCommand).resolves({ Items: [{ updatedKey: 'a' }, { updatedKey: 'b' }] });

    // Act
    const key = await keyAtPosition('c1', 'ALL#=low', 'updated_at', bucket({ index: 0, before: 0, lower: '', offset: 1 }));

    // Assert
    expect(key).toBe('b');
    expect(queries()[0]).toMatchObject({ IndexName: 'rankByUpdated', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'T#c1#OV#ALL#=low' } });
    expect(queries()[0]).not.toHaveProperty('ExpressionAttributeNames');
  });

  it('reads from the end of the partition in the last bucket', async () => {
    // Arrange
    ddb.on(QueryCommand).resolves({ Items: [{ idKey: 'z' }] });

    // Act
    await keyAtPosition('c1', 'OWN#*', 'id', bucket({ upper: undefined, offset: 9 }));

    // Assert
    expect(queries()[0]).toMatchObject({ KeyConditionExpression: 'pk = :pk', ScanIndexForward: false, Limit: 1 });
  });

  it('fails when the index has fewer keys than the directory counts', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ priceKey: 'k10' }] });
    await expect(keyAtPosition('c1', 'OWN#*', 'offer_price', bucket({ offset: 2 }))).rejects.toThrow('Rank keys and directory disagree');
  });
});

describe('keysInBucket', () => {
  it('reads every key between the bounds, dropping the inclusive upper end, across pages', async () => {
    // Arrange
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ priceKey: 'k10' }, { priceKey: 'k11' }], LastEvaluatedKey: { pk: PARTITION, sk: 's11', priceKey: 'k11' } })
      .resolvesOnce({ Items: [{ priceKey: 'k12' }, { priceKey: 'k20' }] });

    // Act
    const keys = await keysInBucket('c1', 'OWN#*', 'offer_price', 'k10', 'k20');

    // Assert
    expect(keys).toEqual(['k10', 'k11', 'k12']);
    expect(queries()[0]).toMatchObject({
      IndexName: 'rankByPrice',
      KeyConditionExpression: 'pk = :pk AND #rank BETWEEN :from AND :below',
      ExpressionAttributeValues: { ':pk': PARTITION, ':from': 'k10', ':below': 'k20' },
      ScanIndexForward: true,
      ConsistentRead: true,
    });
    expect(queries()[0]).not.toHaveProperty('Limit');
    expect(queries()[1]?.ExclusiveStartKey).toEqual({ pk: PARTITION, sk: 's11', priceKey: 'k11' });
  });

  it.each<[string, string, string | undefined, string]>([
    ['the first bucket', '', 'k20', 'pk = :pk AND #rank < :below'],
    ['the last bucket', 'k10', undefined, 'pk = :pk AND #rank >= :from'],
    ['the only bucket', '', undefined, 'pk = :pk'],
  ])('bounds %s by its one existing end', async (_case, lower, upper, condition) => {
    // Arrange
    ddb.on(QueryCommand).resolves({ Items: [{ idKey: 'k15' }] });

    // Act
    const keys = await keysInBucket('c1', 'OWN#*', 'id', lower, upper);

    // Assert
    expect(keys).toEqual(['k15']);
    expect(queries()[0]?.KeyConditionExpression).toBe(condition);
  });
});
