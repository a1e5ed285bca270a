import { ALARM_THRESHOLDS, MONITORED_TABLE_OPERATIONS } from '../../lib/constructs/alarms.js';
import { LOOP_METRICS } from '../../lambdas/observability/loop-metrics.js';
import { ROUTES } from '../../lambdas/config/routes.js';
import { METRICS_NAMESPACE, REFUSED_QUEUE_MESSAGES_METRIC } from '../../lambdas/http/observability.js';
import { POWERTOOLS_SERVICE_NAME } from '../../lib/constructs/api-function.js';
import { MARKET_LOOP_DESCRIPTIONS } from '../../lib/constructs/market-loop.js';
import { functionDescribed, functionNamed, resourcesOfType, synthStack, type CfnResource, type SynthesizedStack } from './stack-fixture.js';

const FUNCTION_NAMES = [...ROUTES.map((route) => route.name), 'Authorizer'];

describe('CloudWatch alarms', () => {
  let synthesized: SynthesizedStack;
  let alarms: CfnResource[];
  const alarmNamed = (suffix: string) => alarms.find((alarm) => alarm.Properties.AlarmName === `repricer-prod-${suffix}`)?.Properties;

  beforeAll(() => {
    synthesized = synthStack({ stage: 'prod' });
    alarms = Object.values(resourcesOfType(synthesized.template, 'AWS::CloudWatch::Alarm'));
  });

  it('has two API alarms, two per function, two for the table, fourteen for the event handlers, one for refused queue messages and two for the market loop', () => {
    // Routes, the authorizer, the three change handlers, the import worker, the webhook worker and the market loop's four (schedule, sync worker, storefront reader, price sender); eight dead-letter depths, three queue ages (list changes, repricing, prices), two stalled queues (market sync, storefront) and the stream's iterator age; Takealot's market view age and failed pushes
    expect(alarms).toHaveLength(2 + 2 * (FUNCTION_NAMES.length + 5 + 4) + 2 + 14 + 1 + 2);
  });

  it("alarms on the p99 of how late Takealot's product pages are read, under the metric and dimensions the reader emits", () => {
    expect(alarmNamed('TakealotMarketViewAge')).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: LOOP_METRICS.marketViewAge,
      Dimensions: [
        { Name: 'connector', Value: 'takealot' },
        { Name: 'service', Value: POWERTOOLS_SERVICE_NAME },
      ],
      ExtendedStatistic: 'p99',
      Period: 300,
      Threshold: ALARM_THRESHOLDS.marketViewAgeP99Seconds,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on Takealot pushes refused or failed on a fault, summed over 15 minutes', () => {
    // Act
    const alarm = alarmNamed('TakealotPushFailures');
    const metrics = alarm?.Metrics as Array<{
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: Record<string, unknown>; Period: number; Stat: string };
    }>;

    // Assess
    expect(alarm).toMatchObject({ Threshold: ALARM_THRESHOLDS.failedPushes, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(metrics.find((metric) => metric.Expression)?.Expression).toBe('FILL(refused, 0) + FILL(fault, 0)');
    const stats = metrics.filter((metric) => metric.MetricStat);
    expect(stats.map((metric) => metric.Id).sort()).toEqual(['fault', 'refused']);
    for (const { Id, MetricStat } of stats) {
      expect(MetricStat).toMatchObject({ Period: 900, Stat: 'Sum' });
      expect(MetricStat?.Metric).toMatchObject({ Namespace: METRICS_NAMESPACE, MetricName: LOOP_METRICS.pricePushes });
      expect(MetricStat?.Metric.Dimensions).toEqual(
        expect.arrayContaining([
          { Name: 'service', Value: POWERTOOLS_SERVICE_NAME },
          { Name: 'connector', Value: 'takealot' },
          { Name: 'outcome', Value: Id },
        ]),
      );
    }
  });

  it('alarms on the API 5XX error rate', () => {
    expect(alarmNamed('Api5xxRate')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Dimensions: [{ Name: 'ApiName', Value: 'repricer-api-prod' }],
      Statistic: 'Average',
      Threshold: ALARM_THRESHOLDS.api5xxRate,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on the API p99 latency', () => {
    expect(alarmNamed('ApiP99Latency')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      Dimensions: [{ Name: 'ApiName', Value: 'repricer-api-prod' }],
      ExtendedStatistic: 'p99',
      Threshold: 2500,
    });
  });

  it.each([
    ...FUNCTION_NAMES.map((name) => [name, () => functionNamed(synthesized.template, name)] as const),
    ['MarketSchedule', () => functionDescribed(synthesized.template, MARKET_LOOP_DESCRIPTIONS.schedule)] as const,
    ['MarketSyncWorker', () => functionDescribed(synthesized.template, MARKET_LOOP_DESCRIPTIONS.worker)] as const,
    ['StorefrontReader', () => functionDescribed(synthesized.template, MARKET_LOOP_DESCRIPTIONS.reader)] as const,
    ['PriceSender', () => functionDescribed(synthesized.template, MARKET_LOOP_DESCRIPTIONS.sender)] as const,
  ])('alarms on errors and throttles of the %s function', (name, find) => {
    // Prepare
    const [functionId] = find();
    const dimensions = [{ Name: 'FunctionName', Value: { Ref: functionId } }];

    // Assess
    expect(alarmNamed(`${name}Errors`)).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: dimensions,
      Statistic: 'Sum',
      Threshold: 1,
    });
    expect(alarmNamed(`${name}Throttles`)).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Throttles',
      Dimensions: dimensions,
      Statistic: 'Sum',
      Threshold: 1,
    });
  });

  it('alarms on the first queue message the forwarder refused, under the metric and dimension it emits', () => {
    expect(alarmNamed('RefusedQueueMessages')).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: REFUSED_QUEUE_MESSAGES_METRIC,
      Dimensions: [{ Name: 'service', Value: POWERTOOLS_SERVICE_NAME }],
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it.each([
    ['TableThrottledRequests', 'ThrottledRequests'],
    ['TableSystemErrors', 'SystemErrors'],
  ])('%s sums DynamoDB %s over the operations the code uses', (alarmName, metricName) => {
    // Prepare
    const tableId = Object.keys(resourcesOfType(synthesized.template, 'AWS::DynamoDB::Table'))[0];

    // Act
    const alarm = alarmNamed(alarmName);
    const metrics = (alarm?.Metrics as Array<{ MetricStat?: { Metric: Record<string, unknown> } }>).filter((m) => m.MetricStat);

    // Assess
    expect(alarm?.Threshold).toBe(1);
    expect(metrics).toHaveLength(MONITORED_TABLE_OPERATIONS.length);
    expect(metrics.length).toBeLessThanOrEqual(10);
    for (const { MetricStat } of metrics) {
      expect(MetricStat?.Metric).toMatchObject({
        Namespace: 'AWS/DynamoDB',
        MetricName: metricName,
      });
      expect(MetricStat?.Metric.Dimensions).toEqual(expect.arrayContaining([{ Name: 'TableName', Value: { Ref: tableId } }]));
    }
    const operations = metrics.map(
      ({ MetricStat }) => (MetricStat?.Metric.Dimensions as Array<{ Name: string; Value: unknown }>).find((d) => d.Name === 'Operation')?.Value,
    );
    expect(operations.sort()).toEqual([...MONITORED_TABLE_OPERATIONS].sort());
  });
});
