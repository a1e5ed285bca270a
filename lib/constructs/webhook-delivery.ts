import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLE_NAME_ENV } from '../../lambdas/config/table-schema.js';
import { visibilityTimeoutFor, WEBHOOK_DELIVERY } from '../../lambdas/config/event-sources.js';
import { ApiFunction } from './api-function.js';
import { FifoWork } from './fifo-work.js';
import { grantTableAccess, TABLE_GRANTS } from './table-access.js';

export interface WebhookDeliveryProps {
  readonly projectRoot: string;
  readonly table: ITable;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
  readonly logLevel: string;
}

/**
 * The webhook queue (SQS FIFO, grouped by tenant and repricer), its dead-letter queue and the
 * worker, which reads the tenant's webhooks and writes their deliveries only (`T#` keys).
 */
export class WebhookDelivery extends Construct {
  readonly work: FifoWork;
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly worker: ApiFunction;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    // 'Default' is left out of logical ids: the queues keep the ids they had when built here.
    this.work = new FifoWork(this, 'Default', {
      visibilityTimeout: Duration.seconds(visibilityTimeoutFor(WEBHOOK_DELIVERY.timeoutSeconds)),
      maxReceiveCount: WEBHOOK_DELIVERY.maxReceiveCount,
      retentionPeriod: Duration.seconds(WEBHOOK_DELIVERY.retentionSeconds),
    });
    this.queue = this.work.queue;
    this.deadLetters = this.work.deadLetters;
    this.worker = new ApiFunction(this, 'Worker', {
      projectRoot: props.projectRoot,
      removalPolicy: props.removalPolicy,
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      entry: WEBHOOK_DELIVERY.entry,
      description: 'the webhook worker (signed deliveries, retried for 24 hours)',
      environment: { [TABLE_NAME_ENV]: props.table.tableName, WEBHOOK_QUEUE_URL: this.queue.queueUrl },
      timeout: Duration.seconds(WEBHOOK_DELIVERY.timeoutSeconds),
    });
    grantTableAccess(this.worker.role, props.table, TABLE_GRANTS.webhookWorker);
    // Receiving and deleting come with the event source; holding a message back is its own grant.
    this.worker.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:ChangeMessageVisibility'], resources: [this.queue.queueArn] }));
    this.worker.function.addEventSource(new SqsEventSource(this.queue, { batchSize: WEBHOOK_DELIVERY.batchSize, reportBatchItemFailures: true }));
  }
}
