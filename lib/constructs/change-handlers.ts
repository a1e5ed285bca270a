import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CHANGE_HANDLERS, IMPORT_WORKER, visibilityTimeoutFor } from '../../lambdas/config/event-sources.js';
import { TABLE_NAME_ENV } from '../../lambdas/config/table-schema.js';
import { ApiFunction } from './api-function.js';
import { FifoWork } from './fifo-work.js';
import type { MonitoredQueue } from './monitored-queue.js';
import { grantTableAccess, TABLE_GRANTS, type TableGrant } from './table-access.js';
import { WebhookDelivery } from './webhook-delivery.js';

export interface ChangeHandlersProps {
  readonly projectRoot: string;
  readonly table: ITable;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
  readonly logLevel: string;
  /** Days a price change is kept before DynamoDB's TTL deletes it. */
  readonly priceChangeRetentionDays: string;
}

/**
 * The event-driven functions: DynamoDB Streams -> forwarder (one message per tenant and batch
 * to each queue) -> SQS FIFO queues grouped by tenant -> list maintainer and repricing
 * evaluator, each with partial-batch failure reporting and a dead-letter queue.
 */
export class ChangeHandlers extends Construct {
  readonly lists: FifoWork;
  readonly repricing: FifoWork;
  readonly imports: FifoWork;
  readonly webhooks: WebhookDelivery;
  readonly streamFailures: Queue;
  readonly forwarder: ApiFunction;
  readonly maintainer: ApiFunction;
  readonly evaluator: ApiFunction;
  readonly importWorker: ApiFunction;
  /** Every queue built here, for the alarms and the dashboard. */
  readonly queues: readonly MonitoredQueue[];

  constructor(scope: Construct, id: string, props: ChangeHandlersProps) {
    super(scope, id);
    const shared = { projectRoot: props.projectRoot, removalPolicy: props.removalPolicy, logRetention: props.logRetention, logLevel: props.logLevel };
    const changeWork = {
      visibilityTimeout: Duration.seconds(visibilityTimeoutFor(CHANGE_HANDLERS.consumerTimeoutSeconds)),
      maxReceiveCount: CHANGE_HANDLERS.maxReceiveCount,
    };
    this.lists = new FifoWork(this, 'ListChanges', changeWork);
    this.repricing = new FifoWork(this, 'Repricing', changeWork);
    this.imports = new FifoWork(this, 'Imports', {
      visibilityTimeout: Duration.seconds(IMPORT_WORKER.visibilityTimeoutSeconds),
      maxReceiveCount: IMPORT_WORKER.maxReceiveCount,
    });
    this.webhooks = new WebhookDelivery(this, 'Webhooks', { ...shared, table: props.table });
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
    this.queues = [
      ...this.lists.monitored('ListChanges', { ageAlarm: true }),
      ...this.repricing.monitored('Repricing', { ageAlarm: true }),
      // A tenant's next import job waits, by design, while its current one runs.
      ...this.imports.monitored('Import', { ageAlarm: false }),
      // A failing receiver holds its events back for 24 hours, by design.
      ...this.webhooks.work.monitored('Webhook', { ageAlarm: false }),
      { name: 'StreamFailures', queue: this.streamFailures, kind: 'deadLetters' },
    ];

    this.forwarder = new ApiFunction(this, 'Forwarder', {
      ...shared,
      entry: CHANGE_HANDLERS.forwarderEntry,
      description: 'the change-stream forwarder',
      environment: {
        LIST_QUEUE_URL: this.lists.queue.queueUrl,
        REPRICING_QUEUE_URL: this.repricing.queue.queueUrl,
        IMPORT_QUEUE_URL: this.imports.queue.queueUrl,
        WEBHOOK_QUEUE_URL: this.webhooks.queue.queueUrl,
      },
    });
    props.table.grantStreamRead(this.forwarder.role);
    this.lists.queue.grantSendMessages(this.forwarder.role);
    this.repricing.queue.grantSendMessages(this.forwarder.role);
    this.imports.queue.grantSendMessages(this.forwarder.role);
    this.webhooks.queue.grantSendMessages(this.forwarder.role);
    this.forwarder.function.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: CHANGE_HANDLERS.streamBatchSize,
        maxBatchingWindow: Duration.seconds(CHANGE_HANDLERS.streamBatchingWindowSeconds),
        retryAttempts: CHANGE_HANDLERS.streamRetryAttempts,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.streamFailures),
        filters: [
          ...(['NewImage', 'OldImage'] as const).map((image) =>
            FilterCriteria.filter({ dynamodb: { [image]: { entity: { S: FilterRule.or(...CHANGE_HANDLERS.streamEntities) } } } }),
          ),
          FilterCriteria.filter(IMPORT_WORKER.streamFilter),
        ],
      }),
    );

    const consumer = (
      consumerId: string,
      entry: string,
      description: string,
      work: FifoWork,
      grant: TableGrant,
      environment: Record<string, string> = {},
      sizing: { timeout: Duration; memorySize: number; batchSize: number } = {
        timeout: Duration.seconds(CHANGE_HANDLERS.consumerTimeoutSeconds),
        memorySize: CHANGE_HANDLERS.consumerMemoryMb,
        batchSize: CHANGE_HANDLERS.queueBatchSize,
      },
    ) => {
      const fn = new ApiFunction(this, consumerId, {
        ...shared,
        entry,
        description,
        environment: { [TABLE_NAME_ENV]: props.table.tableName, ...environment },
        timeout: sizing.timeout,
        memorySize: sizing.memorySize,
      });
      grantTableAccess(fn.role, props.table, grant);
      fn.function.addEventSource(new SqsEventSource(work.queue, { batchSize: sizing.batchSize, reportBatchItemFailures: true }));
      return fn;
    };
    this.maintainer = consumer(
      'Maintainer',
      CHANGE_HANDLERS.maintainerEntry,
      'the list maintainer (offer and price-change listings and counts)',
      this.lists,
      TABLE_GRANTS.maintainer,
    );
    this.evaluator = consumer('Evaluator', CHANGE_HANDLERS.evaluatorEntry, 'the repricing evaluator', this.repricing, TABLE_GRANTS.evaluator, {
      PRICE_CHANGE_RETENTION_DAYS: props.priceChangeRetentionDays,
    });
    this.importWorker = consumer(
      'ImportWorker',
      IMPORT_WORKER.entry,
      'the import worker (import jobs of POST /v1/imports)',
      this.imports,
      TABLE_GRANTS.importWorker,
      {},
      {
        timeout: Duration.seconds(IMPORT_WORKER.timeoutSeconds),
        memorySize: IMPORT_WORKER.memoryMb,
        batchSize: IMPORT_WORKER.batchSize,
      },
    );
  }
}
