import type { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { GLOBAL_SECONDARY_INDEXES, STREAM_VIEW_TYPE, TABLE_KEYS, TTL_ATTRIBUTE } from '../../lambdas/config/table-schema.js';

export interface RepricerTableProps {
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
  /**
   * Indexes left out of this deploy: CloudFormation creates one global secondary index per
   * update of a table, so a stage that gains two at once is updated in two deploys, the first
   * withholding one (docs/deploy.md, "Updating a deployed stage").
   */
  readonly withheldIndexes?: readonly string[];
}

/** The single table and its change stream, built only from `lambdas/config/table-schema.ts` so the local table cannot drift. */
export class RepricerTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: RepricerTableProps) {
    super(scope, id);

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      stream: StreamViewType[STREAM_VIEW_TYPE],
      removalPolicy: props.removalPolicy,
      deletionProtection: props.deletionProtection,
    });

    const withheld = new Set(props.withheldIndexes ?? []);
    for (const name of withheld) {
      if (!GLOBAL_SECONDARY_INDEXES.some((index) => index.indexName === name)) throw new Error(`No index "${name}" to withhold`);
    }
    for (const index of GLOBAL_SECONDARY_INDEXES.filter((candidate) => !withheld.has(candidate.indexName))) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType[index.projection],
      });
    }
  }
}
