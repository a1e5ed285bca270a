import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLE_NAME_ENV } from '../table-schema.js';
import { ApiFunction } from './api-function.js';
import { grantTableAccess } from './table-access.js';

/** How the table's change stream reaches the list maintainer (README "Data model"). */
export const LIST_MAINTENANCE = {
  forwarderEntry: 'lambdas/forward-changes/handler.ts',
  maintainerEntry: 'lambdas/maintain-lists/handler.ts',
  /**
   * Stream records per forwarder invocation. No batching window: a change is forwarded at
   * once, and records that arrive while a batch runs make up the next one.
   */
  streamBatchSize: 100,
  streamRetryAttempts: 10,
  /** Messages per maintainer invocation (SQS FIFO allows at most 10). */
  queueBatchSize: 10,
  maintainerTimeout: Duration.seconds(60),
  maintainerMemoryMb: 1024,
  /** A message that failed this many times goes to the dead-letter queue (alarmed). */
  maxReceiveCount: 5,
  /** Only canonical changes wake the forwarder: what it writes itself, and listings, never do. */
  streamEntities: ['offer', 'product', 'rebuildRequest'],
} as const;

export interface ListMaintenanceProps {
  readonly projectRoot: string;
  readonly table: ITable;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
  readonly logLevel: string;
}

/**
 * The stream consumer and the list maintainer: DynamoDB Streams -> forwarder (one message per
 * tenant and batch) -> SQS FIFO queue grouped by tenant -> maintainer, each with partial-batch
 * failure reporting and a dead-letter queue.
 */
export class ListMaintenance extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly streamFailures: Queue;
  readonly forwarder: ApiFunction;
  readonly maintainer: ApiFunction;

  constructor(scope: Construct, id: string, props: ListMaintenanceProps) {
    super(scope, id);
    const shared = { projectRoot: props.projectRoot, removalPolicy: props.removalPolicy, logRetention: props.logRetention, logLevel: props.logLevel };

    this.deadLetters = new Queue(this, 'DeadLetters', {
      fifo: true,
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.queue = new Queue(this, 'Changes', {
      fifo: true,
      // Six times the consumer's timeout, as Lambda advises, so a slow batch is not handed out twice.
      visibilityTimeout: Duration.seconds(LIST_MAINTENANCE.maintainerTimeout.toSeconds() * 6),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: LIST_MAINTENANCE.maxReceiveCount },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.streamFailures = new Queue(this, 'StreamFailures', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.streamFailures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter destination of the stream event source mapping; its depth is alarmed.',
    });

    this.forwarder = new ApiFunction(this, 'Forwarder', {
      ...shared,
      entry: LIST_MAINTENANCE.forwarderEntry,
      description: 'the change-stream forwarder of the list maintainer',
      environment: { LIST_QUEUE_URL: this.queue.queueUrl },
    });
    props.table.grantStreamRead(this.forwarder.role);
    this.queue.grantSendMessages(this.forwarder.role);
    this.forwarder.function.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: LIST_MAINTENANCE.streamBatchSize,
        retryAttempts: LIST_MAINTENANCE.streamRetryAttempts,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.streamFailures),
        filters: (['NewImage', 'OldImage'] as const).map((image) =>
          FilterCriteria.filter({ dynamodb: { [image]: { entity: { S: FilterRule.or(...LIST_MAINTENANCE.streamEntities) } } } }),
        ),
      }),
    );

    this.maintainer = new ApiFunction(this, 'Maintainer', {
      ...shared,
      entry: LIST_MAINTENANCE.maintainerEntry,
      description: 'the list maintainer (offer listings and counts)',
      environment: { [TABLE_NAME_ENV]: props.table.tableName },
      timeout: LIST_MAINTENANCE.maintainerTimeout,
      memorySize: LIST_MAINTENANCE.maintainerMemoryMb,
    });
    grantTableAccess(this.maintainer.role, props.table, 'readWrite');
    this.maintainer.function.addEventSource(
      new SqsEventSource(this.queue, { batchSize: LIST_MAINTENANCE.queueBatchSize, reportBatchItemFailures: true }),
    );
  }
}
