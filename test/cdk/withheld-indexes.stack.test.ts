import { DUE_INDEX, GLOBAL_SECONDARY_INDEXES } from '../../lambdas/config/table-schema.js';
import { resourcesOfType, synthStack } from './stack-fixture.js';

/** The table's index names in a synthesized stack. */
const indexNames = (context?: Record<string, string>): string[] => {
  const { template } = synthStack({ stage: 'staging', ...(context ? { context } : {}) });
  const table = Object.values(resourcesOfType(template, 'AWS::DynamoDB::Table'))[0];
  return ((table?.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string }[]).map((index) => index.IndexName).sort();
};

describe('indexes withheld from one deploy (CloudFormation adds one index per table update)', () => {
  it('builds every index by default, and leaves out the ones named in -c withheldIndexes', () => {
    expect(indexNames()).toEqual(GLOBAL_SECONDARY_INDEXES.map((index) => index.indexName).sort());
    expect(indexNames({ withheldIndexes: DUE_INDEX.indexName })).toEqual(
      GLOBAL_SECONDARY_INDEXES.filter((index) => index !== DUE_INDEX)
        .map((index) => index.indexName)
        .sort(),
    );
  });

  it('refuses a name that is no index of the table', () => {
    expect(() => indexNames({ withheldIndexes: 'nope' })).toThrow(/No index "nope"/);
  });
});
