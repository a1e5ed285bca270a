import type { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE } from '../../lambdas/http/observability.js';
import { FAILED_PUSH_OUTCOMES, LOOP_DIMENSIONS, LOOP_METRICS } from '../../lambdas/observability/loop-metrics.js';
import { MARKETPLACES } from '../../lambdas/marketplace/marketplaces.js';
import { POWERTOOLS_SERVICE_NAME } from './api-function.js';

/**
 * The market loop's metrics (lambdas/observability/loop-metrics.ts) as the alarms and the dashboard
 * read them. CloudWatch names a metric by all its dimensions, so each is asked for per connector
 * type: the connector types with a marketplace adapter (marketplace/marketplaces.ts), the only ones
 * the loop syncs, reads and pushes for.
 */
export const MARKET_CONNECTORS: readonly string[] = MARKETPLACES.map((marketplace) => marketplace.uid);

export interface LoopMetricOptions {
  readonly statistic: string;
  readonly period: Duration;
  readonly label?: string;
}

/** One of the loop's metrics, for one connector and the other dimension values it is emitted with. */
export const loopMetric = (metricName: string, connector: string, dimensions: Readonly<Record<string, string>>, options: LoopMetricOptions): Metric =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: POWERTOOLS_SERVICE_NAME, [LOOP_DIMENSIONS.connector]: connector, ...dimensions },
    statistic: options.statistic,
    period: options.period,
    ...(options.label ? { label: options.label } : {}),
  });

/** Pushes the marketplace refused, or that failed on a fault, summed (a period without any counts as none). */
export const failedPushes = (connector: string, period: Duration): MathExpression =>
  new MathExpression({
    expression: FAILED_PUSH_OUTCOMES.map((outcome) => `FILL(${outcome}, 0)`).join(' + '),
    usingMetrics: Object.fromEntries(
      FAILED_PUSH_OUTCOMES.map((outcome) => [
        outcome,
        loopMetric(LOOP_METRICS.pricePushes, connector, { [LOOP_DIMENSIONS.outcome]: outcome }, { statistic: Stats.SUM, period }),
      ]),
    ),
    period,
    label: `${connector} failed pushes`,
  });

/** A connector's name as part of a construct id: `takealot` gives `Takealot`. */
export const idOf = (connector: string): string =>
  connector
    .split(/[-_]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
