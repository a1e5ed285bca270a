import { Match } from 'aws-cdk-lib/assertions';

import {
  DIRECTORY_INDEX,
  DUE_INDEX,
  GLOBAL_SECONDARY_INDEXES,
  KEY_ATTRIBUTES,
  LISTING_INDEXES,
  PRICE_CHANGE_FEED_INDEX,
  TTL_ATTRIBUTE,
} from '../../lambdas/config/table-schema.js';
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

  it('has exactly the keys and global indexes of lambdas/config/table-schema.ts, and no local index', () => {
    // Prepare
    const table = Object.values(resourcesOfType(dev.template, 'AWS::DynamoDB::Table'))[0];
    const expectedIndexes = GLOBAL_SECONDARY_INDEXES.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: index.projection },
    }));

    // Assess
    expect(table?.Properties.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(table?.Properties.GlobalSecondaryIndexes).toEqual(expectedIndexes);
    expect(table?.Properties.LocalSecondaryIndexes).toBeUndefined();
    expect(new Set(table?.Properties.AttributeDefinitions)).toEqual(new Set(KEY_ATTRIBUTES.map((name) => ({ AttributeName: name, AttributeType: 'S' }))));
  });

  it('sorts listing partitions by each order in a GSI on the listing partition key that projects whole listing items', () => {
    // Act
    const indexes = Object.values(resourcesOfType(dev.template, 'AWS::DynamoDB::Table'))[0]?.Properties.GlobalSecondaryIndexes as {
      IndexName: string;
      KeySchema: { AttributeName: string; KeyType: string }[];
      Projection: { ProjectionType: string };
    }[];

    // Assess: a page is one Query per cell, with nothing to fetch afterwards
    const others: readonly string[] = [DIRECTORY_INDEX.indexName, PRICE_CHANGE_FEED_INDEX.indexName, DUE_INDEX.indexName];
    const listing = indexes.filter((index) => !others.includes(index.IndexName));
    expect(listing.map((index) => index.IndexName).sort()).toEqual(['byCompetitors', 'byCreated', 'byPrice', 'byUpdated']);
    expect(listing.map((index) => index.IndexName).sort()).toEqual(
      Object.values(LISTING_INDEXES)
        .map((index) => index.indexName)
        .sort(),
    );
    for (const index of listing) {
      expect(index.KeySchema[0]).toEqual({ AttributeName: 'pk', KeyType: 'HASH' });
      expect(index.Projection).toEqual({ ProjectionType: 'ALL' });
    }
  });

  it('lists clients and products in a keys-only directory index, so a rebuild finds every canonical item without a Scan', () => {
    const indexes = Object.values(resourcesOfType(dev.template, 'AWS::DynamoDB::Table'))[0]?.Properties.GlobalSecondaryIndexes as {
      IndexName: string;
      Projection: unknown;
    }[];
    expect(indexes.find((index) => index.IndexName === 'directory')?.Projection).toEqual({ ProjectionType: 'KEYS_ONLY' });
  });

  it("keeps each tenant's price changes by update time in a keys-only index of its own, for polling with a cursor", () => {
    const indexes = Object.values(resourcesOfType(dev.template, 'AWS::DynamoDB::Table'))[0]?.Properties.GlobalSecondaryIndexes as {
      IndexName: string;
      KeySchema: { AttributeName: string; KeyType: string }[];
      Projection: unknown;
    }[];
    const feed = indexes.find((index) => index.IndexName === 'priceChangesByUpdate');
    expect(feed?.KeySchema).toEqual([
      { AttributeName: 'chgPk', KeyType: 'HASH' },
      { AttributeName: 'chgSk', KeyType: 'RANGE' },
    ]);
    expect(feed?.Projection).toEqual({ ProjectionType: 'KEYS_ONLY' });
  });

  it('streams old and new images of every change', () => {
    dev.template.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
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
