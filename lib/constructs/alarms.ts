import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, Metric, Stats, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, REFUSED_QUEUE_MESSAGES_METRIC } from '../../lambdas/shared/http/observability.js';
import { POWERTOOLS_SERVICE_NAME } from './api-function.js';
import type { MonitoredQueue } from './monitored-queue.js';

export const ALARM_PERIOD = Duration.minutes(5);

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
}

/**
 * The service's alarms. They have no actions yet: the account's notification topic is wired
 * with `alarm.addAlarmAction(...)` over `alarms`.
 */
export class Alarms extends Construct {
  readonly alarms: Alarm[] = [];
  private readonly stage: string;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.stage = props.stage;

    this.add('Api5xxRate', {
      metric: props.api.metricServerError({ statistic: Stats.AVERAGE, period: ALARM_PERIOD }),
      threshold: ALARM_THRESHOLDS.api5xxRate,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: 'At least 1% of API requests answered 5XX.',
    });
    this.add('ApiP99Latency', {
      metric: props.api.metricLatency({ statistic: Stats.p(99), period: ALARM_PERIOD }),
      threshold: ALARM_THRESHOLDS.apiP99LatencyMs,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `API p99 latency above ${ALARM_THRESHOLDS.apiP99LatencyMs} ms.`,
    });

    for (const { name, function: fn } of props.functions) {
      this.add(`${name}Errors`, {
        metric: fn.metricErrors({ statistic: Stats.SUM, period: ALARM_PERIOD }),
        threshold: ALARM_THRESHOLDS.lambdaErrors,
        description: `${name} function failed (uncaught error or timeout).`,
      });
      this.add(`${name}Throttles`, {
        metric: fn.metricThrottles({ statistic: Stats.SUM, period: ALARM_PERIOD }),
        threshold: ALARM_THRESHOLDS.lambdaThrottles,
        description: `${name} function invocations were throttled.`,
      });
    }

    for (const monitored of props.queues ?? []) {
      const { name, queue } = monitored;
      if (monitored.kind === 'deadLetters') {
        this.add(`${name}Depth`, {
          metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: ALARM_PERIOD }),
          threshold: ALARM_THRESHOLDS.deadLetters,
          description: `Messages in ${name}: work that failed every retry (docs/operations.md, runbook).`,
        });
      } else if (monitored.ageAlarm) {
        this.add(`${name}Age`, {
          metric: queue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, period: ALARM_PERIOD }),
          threshold: ALARM_THRESHOLDS.queueAgeSeconds,
          description: `The oldest message in ${name} waited ${ALARM_THRESHOLDS.queueAgeSeconds} s or more.`,
        });
      }
    }
    for (const { name, function: fn } of props.streamConsumers ?? []) {
      this.add(`${name}IteratorAge`, {
        metric: fn.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: ALARM_PERIOD }),
        threshold: ALARM_THRESHOLDS.streamIteratorAgeMs,
        description: `${name} reads the change stream ${ALARM_THRESHOLDS.streamIteratorAgeMs / 1000} s or more behind.`,
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
      description: 'The change forwarder dropped a queue message SQS would never take (docs/operations.md, runbook).',
    });

    const operations = [...MONITORED_TABLE_OPERATIONS];
    this.add('TableThrottledRequests', {
      metric: props.table.metricThrottledRequestsForOperations({ operations, period: ALARM_PERIOD }),
      threshold: ALARM_THRESHOLDS.dynamoThrottledRequests,
      description: 'DynamoDB throttled requests on the table.',
    });
    this.add('TableSystemErrors', {
      metric: props.table.metricSystemErrorsForOperations({ operations, period: ALARM_PERIOD }),
      threshold: ALARM_THRESHOLDS.dynamoSystemErrors,
      description: 'DynamoDB answered requests on the table with a 500 system error.',
    });
  }

  private add(id: string, options: { metric: IMetric; threshold: number; description: string; evaluationPeriods?: number; datapointsToAlarm?: number }): void {
    this.alarms.push(
      new Alarm(this, id, {
        alarmName: `repricer-${this.stage}-${id}`,
        alarmDescription: options.description,
        metric: options.metric,
        threshold: options.threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: options.evaluationPeriods ?? 1,
        ...(options.datapointsToAlarm ? { datapointsToAlarm: options.datapointsToAlarm } : {}),
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}
