import { Duration, Validations } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, Metric, Stats, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, UrlSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, REFUSED_QUEUE_MESSAGES_METRIC } from '../../lambdas/http/observability.js';
import { LOOP_METRICS } from '../../lambdas/observability/loop-metrics.js';
import { POWERTOOLS_SERVICE_NAME } from './api-function.js';
import { failedPushes, idOf, loopMetric } from './loop-metrics.js';
import type { MonitoredQueue } from './monitored-queue.js';

export const ALARM_PERIOD = Duration.minutes(5);
/** Failed pushes are counted over this long: a single refused batch is not an incident, a run of them is. */
export const PUSH_FAILURES_PERIOD = Duration.minutes(15);

export const ALARM_THRESHOLDS = {
  /** Share of requests answered 5XX (the metric's average is the error rate). */
  api5xxRate: 0.01,
  /** Well under the 10 s function timeout: a p99 this slow means something is degrading. */
  apiP99LatencyMs: 2_500,
  lambdaErrors: 1,
  lambdaThrottles: 1,
  dynamoThrottledRequests: 1,
  dynamoSystemErrors: 1,
  /** Any message in a dead-letter queue is work that was given up on. */
  deadLetters: 1,
  /** A queue message SQS would never take, dropped so its batch goes on: a text rule let something through. */
  refusedQueueMessages: 1,
  /** Oldest waiting message or stream record: derived lists are this far behind. */
  queueAgeSeconds: 60,
  streamIteratorAgeMs: 60_000,
  /**
   * The market-sync queue: a connection's ticks wait while its full sync runs (under the
   * worker's 10-minute timeout) and a tick over 5 minutes old is skipped, so a message this old
   * means the worker has stopped taking them.
   */
  marketSyncStalledSeconds: 30 * 60,
  /**
   * The storefront queue: reads wait for the host's pace and, after a refusal, its Retry-After
   * (5 minutes at most without one); reads this old mean no reader is taking them, or the
   * marketplace has refused them for half an hour.
   */
  storefrontStalledSeconds: 30 * 60,
  /** p99 of how late product pages are read (MarketViewAge): five times the repriced tier's 2 minutes. */
  marketViewAgeP99Seconds: 10 * 60,
  /** Pushes refused or failed on a fault within PUSH_FAILURES_PERIOD. */
  failedPushes: 5,
} as const;

/** The operations the code issues; an alarm's math expression may hold at most 10 metrics. */
export const MONITORED_TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.TRANSACT_GET_ITEMS,
] as const;

/**
 * Each alarm names its runbook entry: a `###` heading of docs/operations.md, by its anchor. The
 * alarm's description ends with `Runbook: docs/operations.md#<anchor>`, so the notification says
 * where to start; test/cdk/alarms.test.ts fails on an anchor the page does not have.
 */
export const RUNBOOK_DOC = 'docs/operations.md';
export const RUNBOOK = {
  api5xxRate: 'api5xxrate',
  apiP99Latency: 'apip99latency',
  routeErrors: 'route-and-authorizer-errors',
  throttles: 'function-throttles',
  tableThrottledRequests: 'tablethrottledrequests',
  tableSystemErrors: 'tablesystemerrors',
  changeStream: 'change-stream-changeforwarder-streamfailures',
  listChanges: 'list-maintenance-listchanges',
  repricing: 'repricing-evaluation-repricing',
  imports: 'import-jobs-import',
  webhooks: 'webhook-delivery-webhook',
  prices: 'price-sending-prices',
  marketSchedule: 'marketschedule',
  marketSync: 'market-sync-marketsync',
  marketSyncStalled: 'marketsyncstalled',
  storefront: 'storefront-reads-storefront',
  storefrontStalled: 'storefrontstalled',
  marketViewAge: 'market-view-age-connectormarketviewage',
  pushFailures: 'push-failures-connectorpushfailures',
  refusedQueueMessages: 'refusedqueuemessages',
} as const;
export type RunbookEntry = (typeof RUNBOOK)[keyof typeof RUNBOOK];

/** The entry of a function's errors: the event-driven functions' own, every route's (and the authorizer's) the shared one. */
const FUNCTION_RUNBOOKS: Readonly<Record<string, RunbookEntry>> = {
  ChangeForwarder: RUNBOOK.changeStream,
  ListMaintainer: RUNBOOK.listChanges,
  RepricingEvaluator: RUNBOOK.repricing,
  ImportWorker: RUNBOOK.imports,
  WebhookWorker: RUNBOOK.webhooks,
  PriceSender: RUNBOOK.prices,
  MarketSchedule: RUNBOOK.marketSchedule,
  MarketSyncWorker: RUNBOOK.marketSync,
  StorefrontReader: RUNBOOK.storefront,
};

/** The entry of a queue's alarms, by its name (a dead-letter queue's name is its work queue's and `DeadLetters`). */
const QUEUE_RUNBOOKS: Readonly<Record<string, RunbookEntry>> = {
  ListChanges: RUNBOOK.listChanges,
  Repricing: RUNBOOK.repricing,
  Import: RUNBOOK.imports,
  Webhook: RUNBOOK.webhooks,
  StreamFailures: RUNBOOK.changeStream,
  Prices: RUNBOOK.prices,
  MarketSync: RUNBOOK.marketSync,
  Storefront: RUNBOOK.storefront,
};

/** A queue added to the stack without an entry fails the synth: its alarm would reach someone with nowhere to start. */
const queueRunbook = (name: string): RunbookEntry => {
  const entry = QUEUE_RUNBOOKS[name.replace(/DeadLetters$/, '')];
  if (entry === undefined) throw new Error(`Queue ${name} has no runbook entry: add it to QUEUE_RUNBOOKS and docs/operations.md`);
  return entry;
};

/** Who is told of an alarm, from the deploy's context (lib/repricer-stack.ts reads it): none by default. */
export interface AlarmSubscribers {
  readonly emails: readonly string[];
  readonly httpsEndpoints: readonly string[];
}

export interface MonitoredFunction {
  readonly name: string;
  readonly function: IFunction;
}

export interface AlarmsProps {
  readonly stage: string;
  readonly api: RestApi;
  readonly functions: readonly MonitoredFunction[];
  readonly table: Table;
  /** A dead-letter queue alarms on any message; a work queue on its oldest message's age, where `ageAlarm` says so. */
  readonly queues?: readonly MonitoredQueue[];
  /** Functions reading the table's change stream: their iterator age is the stream's lag. */
  readonly streamConsumers?: readonly MonitoredFunction[];
  /** Connector types the market loop serves: their market view age and failed pushes are alarmed (loop-metrics.ts). */
  readonly marketConnectors?: readonly string[];
  /** Subscribed to the stage's alarm topic. */
  readonly subscribers?: AlarmSubscribers;
}

/**
 * The service's alarms, each notifying the stage's topic `repricer-<stage>-alarms` when it fires
 * and when it is OK again; the deploy's context subscribes e-mail addresses and HTTPS endpoints
 * to it (docs/deploy.md).
 */
export class Alarms extends Construct {
  readonly alarms: Alarm[] = [];
  readonly topic: Topic;
  private readonly stage: string;
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.stage = props.stage;
    this.topic = new Topic(this, 'Topic', {
      topicName: `repricer-${props.stage}-alarms`,
      displayName: `Repricer API ${props.stage} alarms`,
      enforceSSL: true,
    });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'The alarm topic carries alarm names, thresholds and states, never client data; CloudWatch cannot publish to a topic under the AWS-managed SNS key.',
    });
    for (const email of props.subscribers?.emails ?? []) this.topic.addSubscription(new EmailSubscription(email));
    for (const url of props.subscribers?.httpsEndpoints ?? []) this.topic.addSubscription(new UrlSubscription(url));
    this.action = new SnsAction(this.topic);

    this.add('Api5xxRate', {
      metric: props.api.metricServerError({ statistic: Stats.AVERAGE, period: ALARM_PERIOD }),
      threshold: ALARM_THRESHOLDS.api5xxRate,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: 'At least 1% of API requests answered 5XX.',
      runbook: RUNBOOK.api5xxRate,
    });
    this.add('ApiP99Latency', {
      metric: props.api.metricLatency({ statistic: Stats.p(99), period: ALARM_PERIOD }),
      threshold: ALARM_THRESHOLDS.apiP99LatencyMs,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `API p99 latency above ${ALARM_THRESHOLDS.apiP99LatencyMs} ms.`,
      runbook: RUNBOOK.apiP99Latency,
    });

    for (const { name, function: fn } of props.functions) {
      this.add(`${name}Errors`, {
        metric: fn.metricErrors({ statistic: Stats.SUM, period: ALARM_PERIOD }),
        threshold: ALARM_THRESHOLDS.lambdaErrors,
        description: `${name} function failed (uncaught error or timeout).`,
        runbook: FUNCTION_RUNBOOKS[name] ?? RUNBOOK.routeErrors,
      });
      this.add(`${name}Throttles`, {
        metric: fn.metricThrottles({ statistic: Stats.SUM, period: ALARM_PERIOD }),
        threshold: ALARM_THRESHOLDS.lambdaThrottles,
        description: `${name} function invocations were throttled.`,
        runbook: RUNBOOK.throttles,
      });
    }

    for (const monitored of props.queues ?? []) {
      const { name, queue } = monitored;
      if (monitored.kind === 'deadLetters') {
        this.add(`${name}Depth`, {
          metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: ALARM_PERIOD }),
          threshold: ALARM_THRESHOLDS.deadLetters,
          description: `Messages in ${name}: work that failed every retry.`,
          runbook: queueRunbook(name),
        });
      } else if (monitored.ageAlarm) {
        this.add(`${name}Age`, {
          metric: queue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, period: ALARM_PERIOD }),
          threshold: ALARM_THRESHOLDS.queueAgeSeconds,
          description: `The oldest message in ${name} waited ${ALARM_THRESHOLDS.queueAgeSeconds} s or more.`,
          runbook: queueRunbook(name),
        });
      } else if (monitored.stalledAfterSeconds !== undefined) {
        this.add(`${name}Stalled`, {
          metric: queue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, period: ALARM_PERIOD }),
          threshold: monitored.stalledAfterSeconds,
          evaluationPeriods: 2,
          description: `The oldest message in ${name} waited ${monitored.stalledAfterSeconds / 60} minutes or more: its messages wait by design, but not this long.`,
          runbook: name === 'MarketSync' ? RUNBOOK.marketSyncStalled : name === 'Storefront' ? RUNBOOK.storefrontStalled : queueRunbook(name),
        });
      }
    }
    for (const { name, function: fn } of props.streamConsumers ?? []) {
      this.add(`${name}IteratorAge`, {
        metric: fn.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: ALARM_PERIOD }),
        threshold: ALARM_THRESHOLDS.streamIteratorAgeMs,
        description: `${name} reads the change stream ${ALARM_THRESHOLDS.streamIteratorAgeMs / 1000} s or more behind.`,
        runbook: RUNBOOK.changeStream,
      });
    }

    this.add('RefusedQueueMessages', {
      metric: new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: REFUSED_QUEUE_MESSAGES_METRIC,
        dimensionsMap: { service: POWERTOOLS_SERVICE_NAME },
        statistic: Stats.SUM,
        period: ALARM_PERIOD,
      }),
      threshold: ALARM_THRESHOLDS.refusedQueueMessages,
      description: 'The change forwarder dropped a queue message SQS would never take.',
      runbook: RUNBOOK.refusedQueueMessages,
    });

    for (const connector of props.marketConnectors ?? []) {
      this.add(`${idOf(connector)}MarketViewAge`, {
        metric: loopMetric(LOOP_METRICS.marketViewAge, connector, {}, { statistic: Stats.p(99), period: ALARM_PERIOD }),
        threshold: ALARM_THRESHOLDS.marketViewAgeP99Seconds,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        description: `${connector}: p99 of how late product pages are read is ${ALARM_THRESHOLDS.marketViewAgeP99Seconds / 60} minutes or more: the market view is going stale.`,
        runbook: RUNBOOK.marketViewAge,
      });
      this.add(`${idOf(connector)}PushFailures`, {
        metric: failedPushes(connector, PUSH_FAILURES_PERIOD),
        threshold: ALARM_THRESHOLDS.failedPushes,
        description: `${connector}: ${ALARM_THRESHOLDS.failedPushes} or more price pushes refused or failed on a fault within ${PUSH_FAILURES_PERIOD.toMinutes()} minutes.`,
        runbook: RUNBOOK.pushFailures,
      });
    }

    const operations = [...MONITORED_TABLE_OPERATIONS];
    this.add('TableThrottledRequests', {
      metric: props.table.metricThrottledRequestsForOperations({ operations, period: ALARM_PERIOD }),
      threshold: ALARM_THRESHOLDS.dynamoThrottledRequests,
      description: 'DynamoDB throttled requests on the table.',
      runbook: RUNBOOK.tableThrottledRequests,
    });
    this.add('TableSystemErrors', {
      metric: props.table.metricSystemErrorsForOperations({ operations, period: ALARM_PERIOD }),
      threshold: ALARM_THRESHOLDS.dynamoSystemErrors,
      description: 'DynamoDB answered requests on the table with a 500 system error.',
      runbook: RUNBOOK.tableSystemErrors,
    });
  }

  private add(
    id: string,
    options: { metric: IMetric; threshold: number; description: string; runbook: RunbookEntry; evaluationPeriods?: number; datapointsToAlarm?: number },
  ): void {
    const alarm = new Alarm(this, id, {
      alarmName: `repricer-${this.stage}-${id}`,
      alarmDescription: `${options.description} Runbook: ${RUNBOOK_DOC}#${options.runbook}`,
      metric: options.metric,
      threshold: options.threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      ...(options.datapointsToAlarm ? { datapointsToAlarm: options.datapointsToAlarm } : {}),
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    // OK too: whoever was woken learns when it is over without opening the console.
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
  }
}
