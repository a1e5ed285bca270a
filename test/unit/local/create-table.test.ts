import { createTableInput } from '../../../tools/local/create-table.js';
import { GLOBAL_SECONDARY_INDEXES, KEY_ATTRIBUTES, STREAM_VIEW_TYPE, TABLE_KEYS } from '../../../lambdas/shared/config/table-schema.js';

describe('createTableInput', () => {
  const input = createTableInput('repricer-test');

  it('is an on-demand table keyed as the schema says', () => {
    expect(input).toMatchObject({
      TableName: 'repricer-test',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
    });
  });

  it('defines every key attribute of the schema once, as a string', () => {
    const names = input.AttributeDefinitions?.map((a) => a.AttributeName);
    expect(names).toEqual([...KEY_ATTRIBUTES]);
    expect(new Set(names).size).toBe(names?.length);
    expect(input.AttributeDefinitions?.every((a) => a.AttributeType === 'S')).toBe(true);
  });

  it('creates exactly the global secondary indexes of the schema', () => {
    expect(input.GlobalSecondaryIndexes).toEqual(
      GLOBAL_SECONDARY_INDEXES.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: index.projection },
      })),
    );
  });

  it('creates no local secondary index: none may cap a growing partition', () => {
    expect(input.LocalSecondaryIndexes).toBeUndefined();
  });

  it('turns on the change stream with old and new images, which drives the list maintenance', () => {
    expect(input.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(STREAM_VIEW_TYPE).toBe('NEW_AND_OLD_IMAGES');
  });
});
