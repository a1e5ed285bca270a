import { Match } from 'aws-cdk-lib/assertions';

import { GLOBAL_SECONDARY_INDEXES, KEY_ATTRIBUTES, LOCAL_SECONDARY_INDEXES, TABLE_KEYS, TTL_ATTRIBUTE } from '../../lib/table-schema.js';
import { resourcesOfType, synthStack, type SynthesizedStack } from './stack-fixture.js';

describe('DynamoDB table', () => {
  let dev: SynthesizedStack;
  let prod: SynthesizedStack;

  beforeAll(() => {
    dev = synthStack({ stage: 'dev' });
    prod = synthStack({ stage: 'prod' });
  });

  it('is the only table', () => {
    dev.template.resourceCountIs('AWS::DynamoDB::Table', 1);
  });

  it('has exactly the keys and indexes of lib/table-schema.ts', () => {
    // Prepare
    const table = Object.values(resourcesOfType(dev.template, 'AWS::DynamoDB::Table'))[0];
    const expectedIndexes = GLOBAL_SECONDARY_INDEXES.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    }));
    const expectedLocalIndexes = LOCAL_SECONDARY_INDEXES.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    }));

    // Assess
    expect(table?.Properties.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(table?.Properties.GlobalSecondaryIndexes).toEqual(expectedIndexes);
    expect(table?.Properties.GlobalSecondaryIndexes).toHaveLength(4);
    expect(table?.Properties.LocalSecondaryIndexes).toEqual(expectedLocalIndexes);
    expect(table?.Properties.LocalSecondaryIndexes).toHaveLength(5);
    expect(new Set(table?.Properties.AttributeDefinitions)).toEqual(
      new Set(KEY_ATTRIBUTES.map((name) => ({ AttributeName: name, AttributeType: 'S' }))),
    );
  });

  it('is on-demand, point-in-time recoverable, encrypted with the AWS managed key, with a TTL attribute', () => {
    dev.template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true, KMSMasterKeyId: Match.absent() },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    expect(TTL_ATTRIBUTE).toBe('expiresAt');
  });

  it('is retained and protected from deletion outside dev', () => {
    prod.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
  });

  it('is deleted with the dev stack and not deletion-protected', () => {
    dev.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });

  it('tags resources with the service and the stage', () => {
    prod.template.hasResourceProperties('AWS::DynamoDB::Table', {
      Tags: Match.arrayWith([
        { Key: 'service', Value: 'repricer-api' },
        { Key: 'stage', Value: 'prod' },
      ]),
    });
  });

  it('outputs the table name', () => {
    const table = Object.keys(resourcesOfType(dev.template, 'AWS::DynamoDB::Table'))[0];
    dev.template.hasOutput('TableName', { Value: { Ref: table } });
  });
});
