import { Duration } from 'aws-cdk-lib';
import { Dashboard, GraphWidget, Metric, Stats, TextWidget, type IMetric, type IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { MonitoredQueue } from './monitored-queue.js';
import { PRICE_CHANGES_LOG } from '../../lambdas/functions/evaluate-repricers/decided-log.js';
import { METRICS_NAMESPACE, REQUEST_METRICS, ROUTE_DIMENSION } from '../../lambdas/http/observability.js';
import { marketLoopWidgets } from './loop-widgets.js';

/** The service name Powertools adds as a dimension to every metric it emits. */
const SERVICE = 'repricer-api';
const PERIOD = Duration.minutes(1);

export interface DashboardProps {
  readonly stage: string;
  readonly routes: readonly string[];
  /** Work queues are graphed by their oldest message's age, dead-letter queues by depth: every one, alarmed or not. */
  readonly queues: readonly MonitoredQueue[];
  readonly streamReader: IFunction;
  /** The evaluator's log group: price changes are counted from its log lines. */
  readonly evaluatorLogs: ILogGroup;
  /** Metrics of failed work not shown elsewhere (e.g. webhook deliveries), by name. */
  readonly failures?: readonly { readonly name: string; readonly metric: IMetric }[];
  /** Connector types the market loop serves: its pushes, answers, syncs and view age are graphed per connector. */
  readonly marketConnectors?: readonly string[];
}

/**
 * One CloudWatch dashboard per stage: what the API answers (requests, errors and p99 latency per
 * route, from the handlers' embedded metrics), how far the event-driven work is behind (stream
 * iterator age, queue age), what was given up on (dead-letter depth), what it does (price
 * changes per minute), and the market loop's health (loop-widgets.ts).
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    const perRoute = (metricName: string, statistic: string, label: string) =>
      props.routes.map(
        (route) =>
          new Metric({
            namespace: METRICS_NAMESPACE,
            metricName,
            dimensionsMap: { service: SERVICE, [ROUTE_DIMENSION]: route },
            statistic,
            period: PERIOD,
            label: `${route} ${label}`,
          }),
      );

    new MetricFilter(this, 'PriceChangesFilter', {
      logGroup: props.evaluatorLogs,
      metricNamespace: METRICS_NAMESPACE,
      metricName: PRICE_CHANGES_LOG.metricName,
      filterPattern: FilterPattern.stringValue('$.message', '=', PRICE_CHANGES_LOG.message),
      metricValue: `$.${PRICE_CHANGES_LOG.countField}`,
      defaultValue: 0,
    });
    const priceChanges = new Metric({
      namespace: METRICS_NAMESPACE,
      metricName: PRICE_CHANGES_LOG.metricName,
      statistic: Stats.SUM,
      period: PERIOD,
      label: 'price changes',
    });

    const workQueues = props.queues.filter(({ kind }) => kind === 'work');
    const deadLetterQueues = props.queues.filter(({ kind }) => kind === 'deadLetters');

    const graph = (title: string, left: IMetric[], unit?: string): IWidget =>
      new GraphWidget({ title, left, width: 12, height: 6, ...(unit ? { leftYAxis: { label: unit, showUnits: false } } : {}) });

    const widgets: IWidget[][] = [
      [new TextWidget({ markdown: `# Repricer API (${props.stage})\nRunbook: docs/operations.md`, width: 24, height: 2 })],
      [
        graph('Requests per route', perRoute(REQUEST_METRICS.requests, Stats.SUM, 'requests')),
        graph('Server errors per route', perRoute(REQUEST_METRICS.serverErrors, Stats.SUM, '5xx')),
      ],
      [
        graph('p99 latency per route', perRoute(REQUEST_METRICS.latency, Stats.p(99), 'p99'), 'ms'),
        graph('Client errors per route', perRoute(REQUEST_METRICS.clientErrors, Stats.SUM, '4xx')),
      ],
      [
        graph(
          'Change stream: iterator age',
          [props.streamReader.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: PERIOD, label: 'iterator age' })],
          'ms',
        ),
        graph(
          'Queues: age of the oldest message',
          workQueues.map(({ name, queue }) => queue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, period: PERIOD, label: name })),
          's',
        ),
      ],
      [
        graph(
          'Dead-letter queues: messages',
          deadLetterQueues.map(({ name, queue }) => queue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: PERIOD, label: name })),
        ),
        graph('Price changes per minute', [priceChanges]),
      ],
      ...(props.failures && props.failures.length > 0
        ? [
            [
              graph(
                'Failed deliveries',
                props.failures.map(({ metric }) => metric),
              ),
            ],
          ]
        : []),
      ...marketLoopWidgets(props.marketConnectors ?? [], graph),
    ];
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `repricer-${props.stage}`, widgets });
  }
}
