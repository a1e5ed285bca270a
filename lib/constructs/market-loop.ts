import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { visibilityTimeoutFor } from '../../lambdas/config/event-sources.js';
import { MARKET_SYNC, MARKET_SYNC_QUEUE_URL_ENV, readerConcurrency, STOREFRONT_QUEUE_URL_ENV, STOREFRONT_RATE_ENV } from '../../lambdas/config/market-sync.js';
import { PRICE_SENDER_QUEUE_URL_ENV, PRICE_SENDING } from '../../lambdas/config/price-sending.js';
import { TABLE_NAME_ENV } from '../../lambdas/config/table-schema.js';
import { ALARM_THRESHOLDS, type MonitoredFunction } from './alarms.js';
import { ApiFunction } from './api-function.js';
import { FifoWork } from './fifo-work.js';
import type { MonitoredQueue } from './monitored-queue.js';
import { grantTableAccess, TABLE_GRANTS } from './table-access.js';

/** The functions' descriptions (what the console and the tests find them by). */
export const MARKET_LOOP_DESCRIPTIONS = {
  schedule: 'the market schedule (a sync tick per connection and the read plan, once a minute)',
  worker: 'the market sync worker (own offers, looks brought forward)',
  reader: 'the storefront reader (product pages at the stage pace)',
  sender: 'the price sender (pushes, confirmations, safety caps)',
} as const;

export interface MarketLoopProps {
  readonly projectRoot: string;
  readonly table: ITable;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
  readonly logLevel: string;
  /** The stage's marketplace base URLs (operator settings, the same the put-connection function gets). */
  readonly marketplaceEnvironment: Readonly<Record<string, string>>;
}

/**
 * The market loop (lambdas/config/market-sync.ts, docs/market-sync.md): an EventBridge
 * rule ticks the schedule function once a minute; it sends one message per connection to the
 * market-sync queue (FIFO, grouped by connection), whose worker syncs own offers and sends
 * storefront reads to the storefront queue (FIFO, grouped by connection and product), whose
 * readers read pages at the stage's pace; and the price sender, fed by the change forwarder and
 * each tick's sweep through its FIFO queue (grouped by connection). Every number comes from
 * MARKET_SYNC and PRICE_SENDING, the settings `npm start` runs the same handlers with
 * (tools/local/market-loop.ts).
 */
export class MarketLoop extends Construct {
  readonly marketSync: FifoWork;
  readonly storefront: FifoWork;
  readonly schedule: ApiFunction;
  readonly worker: ApiFunction;
  readonly reader: ApiFunction;
  readonly prices: FifoWork;
  readonly sender: ApiFunction;
  readonly tick: Rule;
  /** The three work queues and their dead letters, for the alarms and the dashboard. */
  readonly queues: readonly MonitoredQueue[];
  /** The four functions, for the alarms. */
  readonly functions: readonly MonitoredFunction[];

  constructor(scope: Construct, id: string, props: MarketLoopProps) {
    super(scope, id);
    const shared = { projectRoot: props.projectRoot, removalPolicy: props.removalPolicy, logRetention: props.logRetention, logLevel: props.logLevel };

    this.marketSync = new FifoWork(this, 'MarketSync', {
      visibilityTimeout: Duration.seconds(visibilityTimeoutFor(MARKET_SYNC.workerTimeoutSeconds)),
      maxReceiveCount: MARKET_SYNC.workerMaxReceiveCount,
    });
    this.storefront = new FifoWork(this, 'Storefront', {
      visibilityTimeout: Duration.seconds(visibilityTimeoutFor(MARKET_SYNC.readerTimeoutSeconds)),
      maxReceiveCount: MARKET_SYNC.readerMaxReceiveCount,
    });
    this.prices = new FifoWork(this, 'Prices', {
      visibilityTimeout: Duration.seconds(visibilityTimeoutFor(PRICE_SENDING.senderTimeoutSeconds)),
      maxReceiveCount: PRICE_SENDING.senderMaxReceiveCount,
    });
    this.queues = [
      // A connection's ticks wait, by design, while its full sync runs (minutes): alarmed only once stalled.
      ...this.marketSync.monitored('MarketSync', { ageAlarm: false, stalledAfterSeconds: ALARM_THRESHOLDS.marketSyncStalledSeconds }),
      // Reads wait, by design, for the host's pace and after a refusal for its Retry-After: alarmed only once stalled.
      ...this.storefront.monitored('Storefront', { ageAlarm: false, stalledAfterSeconds: ALARM_THRESHOLDS.storefrontStalledSeconds }),
      // Prices wait only for the connection's earlier pushes: an old message means sending is stuck.
      ...this.prices.monitored('Prices', { ageAlarm: true }),
    ];

    this.schedule = new ApiFunction(this, 'Schedule', {
      ...shared,
      entry: MARKET_SYNC.scheduleEntry,
      description: MARKET_LOOP_DESCRIPTIONS.schedule,
      environment: {
        [TABLE_NAME_ENV]: props.table.tableName,
        [MARKET_SYNC_QUEUE_URL_ENV]: this.marketSync.queue.queueUrl,
        [STOREFRONT_QUEUE_URL_ENV]: this.storefront.queue.queueUrl,
        [STOREFRONT_RATE_ENV]: String(MARKET_SYNC.storefrontRequestsPerSecond),
      },
      // A tick ends before the next one starts.
      timeout: Duration.seconds(MARKET_SYNC.tickSeconds),
    });
    grantTableAccess(this.schedule.role, props.table, TABLE_GRANTS.marketSchedule);
    this.marketSync.queue.grantSendMessages(this.schedule.role);
    this.storefront.queue.grantSendMessages(this.schedule.role);
    this.tick = new Rule(this, 'Tick', {
      description: 'Ticks the market schedule',
      schedule: Schedule.rate(Duration.seconds(MARKET_SYNC.tickSeconds)),
      // A tick not delivered within its minute is replaced by the next one.
      targets: [new LambdaFunction(this.schedule.function, { maxEventAge: Duration.seconds(MARKET_SYNC.tickSeconds), retryAttempts: 2 })],
    });

    this.worker = new ApiFunction(this, 'Worker', {
      ...shared,
      entry: MARKET_SYNC.workerEntry,
      description: MARKET_LOOP_DESCRIPTIONS.worker,
      environment: {
        [TABLE_NAME_ENV]: props.table.tableName,
        [STOREFRONT_RATE_ENV]: String(MARKET_SYNC.storefrontRequestsPerSecond),
        [PRICE_SENDER_QUEUE_URL_ENV]: this.prices.queue.queueUrl,
        ...props.marketplaceEnvironment,
      },
      timeout: Duration.seconds(MARKET_SYNC.workerTimeoutSeconds),
      memorySize: MARKET_SYNC.workerMemoryMb,
    });
    grantTableAccess(this.worker.role, props.table, TABLE_GRANTS.marketSync);
    // Each tick asks the sender to sweep the connection.
    this.prices.queue.grantSendMessages(this.worker.role);
    this.worker.function.addEventSource(new SqsEventSource(this.marketSync.queue, { batchSize: MARKET_SYNC.workerBatchSize, reportBatchItemFailures: true }));

    this.reader = new ApiFunction(this, 'Reader', {
      ...shared,
      entry: MARKET_SYNC.readerEntry,
      description: MARKET_LOOP_DESCRIPTIONS.reader,
      environment: {
        [TABLE_NAME_ENV]: props.table.tableName,
        [STOREFRONT_QUEUE_URL_ENV]: this.storefront.queue.queueUrl,
        [STOREFRONT_RATE_ENV]: String(MARKET_SYNC.storefrontRequestsPerSecond),
        ...props.marketplaceEnvironment,
      },
      timeout: Duration.seconds(MARKET_SYNC.readerTimeoutSeconds),
      memorySize: MARKET_SYNC.readerMemoryMb,
    });
    grantTableAccess(this.reader.role, props.table, TABLE_GRANTS.marketSync);
    // Receiving and deleting come with the event source; holding a message back is its own grant.
    this.reader.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:ChangeMessageVisibility'], resources: [this.storefront.queue.queueArn] }));
    this.reader.function.addEventSource(
      new SqsEventSource(this.storefront.queue, {
        batchSize: MARKET_SYNC.readerBatchSize,
        // The stage's rate is divided among this many readers (lambdas/functions/read-storefront/handler.ts).
        maxConcurrency: readerConcurrency(),
        reportBatchItemFailures: true,
      }),
    );

    this.sender = new ApiFunction(this, 'Sender', {
      ...shared,
      entry: PRICE_SENDING.senderEntry,
      description: MARKET_LOOP_DESCRIPTIONS.sender,
      environment: { [TABLE_NAME_ENV]: props.table.tableName, ...props.marketplaceEnvironment },
      timeout: Duration.seconds(PRICE_SENDING.senderTimeoutSeconds),
      memorySize: PRICE_SENDING.senderMemoryMb,
    });
    grantTableAccess(this.sender.role, props.table, TABLE_GRANTS.priceSender);
    this.sender.function.addEventSource(new SqsEventSource(this.prices.queue, { batchSize: PRICE_SENDING.senderBatchSize, reportBatchItemFailures: true }));

    this.functions = [
      { name: 'MarketSchedule', function: this.schedule.function },
      { name: 'MarketSyncWorker', function: this.worker.function },
      { name: 'StorefrontReader', function: this.reader.function },
      { name: 'PriceSender', function: this.sender.function },
    ];
  }

  /** The change forwarder: sends price changes that became pending, connection moves and batch events to the sender. */
  acceptPriceWorkFrom(fn: ApiFunction): void {
    fn.function.addEnvironment(PRICE_SENDER_QUEUE_URL_ENV, this.prices.queue.queueUrl);
    this.prices.queue.grantSendMessages(fn.role);
  }

  /** A function that brings a connection's next look forward (the change forwarder): may send to the market-sync queue, and is told where it is. */
  acceptSyncRequestsFrom(fn: ApiFunction): void {
    fn.function.addEnvironment(MARKET_SYNC_QUEUE_URL_ENV, this.marketSync.queue.queueUrl);
    this.marketSync.queue.grantSendMessages(fn.role);
  }
}
