import { Duration } from 'aws-cdk-lib';
import { Stats, TextWidget, type IMetric, type IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { CONNECTION_STATUSES } from '../../lambdas/domain/connections.js';
import { LOOP_DIMENSIONS, LOOP_METRICS, MARKETPLACE_APIS, PUSH_OUTCOMES, STATUS_CLASSES } from '../../lambdas/observability/loop-metrics.js';
import { loopMetric } from './loop-metrics.js';

const PERIOD = Duration.minutes(1);
/** A connection's status is recorded at each full own-offer sync, every 15 minutes: summed over as long, it counts the connections. */
const STATUS_PERIOD = Duration.minutes(15);

type Graph = (title: string, left: IMetric[], unit?: string) => IWidget;

/**
 * The market loop's rows of the dashboard (docs/operations.md, "Market loop metrics"): what
 * became of the pushes, what the marketplace answered, how late pages are read and how long
 * syncs take, the connections' statuses and the breaker's trips, every connector on each graph.
 */
export const marketLoopWidgets = (connectors: readonly string[], graph: Graph): IWidget[][] => {
  if (connectors.length === 0) return [];
  const each = <T>(values: readonly T[], metric: (connector: string, value: T) => IMetric): IMetric[] =>
    connectors.flatMap((connector) => values.map((value) => metric(connector, value)));
  const perMinute = (name: string, dimensions: Record<string, string>, connector: string, label: string) =>
    loopMetric(name, connector, dimensions, { statistic: Stats.SUM, period: PERIOD, label: `${connector} ${label}` });
  const percentiles = (name: string) =>
    each([Stats.p(50), Stats.p(99)], (connector, statistic) =>
      loopMetric(name, connector, {}, { statistic, period: PERIOD, label: `${connector} ${statistic}` }),
    );
  const answers = MARKETPLACE_APIS.flatMap((api) => STATUS_CLASSES.map((statusClass) => ({ api, statusClass })));

  return [
    [
      new TextWidget({
        markdown: '## Market loop\nPushes, marketplace answers, page reads and syncs, per connector (docs/operations.md)',
        width: 24,
        height: 1,
      }),
    ],
    [
      graph(
        'Price pushes by outcome',
        each(PUSH_OUTCOMES, (connector, outcome) => perMinute(LOOP_METRICS.pricePushes, { [LOOP_DIMENSIONS.outcome]: outcome }, connector, outcome)),
      ),
      graph(
        'Marketplace answers by status class',
        each(answers, (connector, { api, statusClass }) =>
          perMinute(
            LOOP_METRICS.marketplaceAnswers,
            { [LOOP_DIMENSIONS.api]: api, [LOOP_DIMENSIONS.statusClass]: statusClass },
            connector,
            `${api} ${statusClass}`,
          ),
        ),
      ),
    ],
    [
      graph('Market view age (how late pages are read)', percentiles(LOOP_METRICS.marketViewAge), 's'),
      graph('Own-offer sync duration', percentiles(LOOP_METRICS.syncDuration), 'ms'),
    ],
    [
      graph(
        'Connections by status',
        each(CONNECTION_STATUSES, (connector, status) =>
          loopMetric(
            LOOP_METRICS.connectionStatus,
            connector,
            { [LOOP_DIMENSIONS.status]: status },
            { statistic: Stats.SUM, period: STATUS_PERIOD, label: `${connector} ${status}` },
          ),
        ),
      ),
      graph(
        'Circuit breaker trips',
        connectors.map((connector) => perMinute(LOOP_METRICS.breakerTrips, {}, connector, 'trips')),
      ),
    ],
  ];
};
