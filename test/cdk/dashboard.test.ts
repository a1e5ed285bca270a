import { PRICE_CHANGES_LOG } from '../../lambdas/functions/evaluate-repricers/decided-log.js';
import { METRICS_NAMESPACE } from '../../lambdas/http/observability.js';
import { CONNECTION_STATUSES } from '../../lambdas/domain/connections.js';
import { LOOP_METRICS, MARKETPLACE_APIS, PUSH_OUTCOMES, STATUS_CLASSES } from '../../lambdas/observability/loop-metrics.js';
import { ROUTES } from '../../lambdas/config/routes.js';
import { resourceId, resourcesOfType, synthStack, type CfnResource, type SynthesizedStack } from './stack-fixture.js';

/**
 * The stage's dashboard: its body is a Fn::Join of text and references; references are
 * written as `<LogicalId>` (or `<LogicalId.Attribute>`) so the body parses as the JSON
 * CloudWatch receives.
 */
type Widget = { type: string; properties: { title?: string; metrics?: unknown[][]; markdown?: string } };

const bodyOf = (synthesized: SynthesizedStack): { widgets: Widget[] } => {
  const [dashboard] = Object.values(resourcesOfType(synthesized.template, 'AWS::CloudWatch::Dashboard'));
  const [, parts] = dashboard!.Properties.DashboardBody['Fn::Join'] as [string, unknown[]];
  const text = parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const token = part as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
      return token.Ref ? `<${token.Ref}>` : token['Fn::GetAtt'] ? `<${token['Fn::GetAtt'].join('.')}>` : `<${JSON.stringify(part).replace(/"/g, "'")}>`;
    })
    .join('');
  return JSON.parse(text) as { widgets: Widget[] };
};

describe('dashboard', () => {
  let synthesized: SynthesizedStack;
  let widgets: Widget[];
  const widgetTitled = (title: string) => widgets.find((widget) => widget.properties.title === title);
  const metricsOf = (title: string) => widgetTitled(title)?.properties.metrics ?? [];

  beforeAll(() => {
    synthesized = synthStack({ stage: 'prod' });
    ({ widgets } = bodyOf(synthesized));
  });

  it('is one dashboard named after the stage', () => {
    expect(Object.values(resourcesOfType(synthesized.template, 'AWS::CloudWatch::Dashboard')).map((d) => d.Properties.DashboardName)).toEqual([
      'repricer-prod',
    ]);
  });

  it.each([
    ['Requests per route', 'Requests', 'Sum'],
    ['Server errors per route', 'ServerErrors', 'Sum'],
    ['p99 latency per route', 'Latency', 'p99'],
  ])("graphs %s for every route, from the handlers' metrics", (title, metricName, statistic) => {
    // Act
    const metrics = metricsOf(title);

    // Assess: [namespace, name, dim, value, dim, value, { options }] for each route
    const routes = metrics.map((metric) => {
      expect(metric.slice(0, 2)).toEqual([METRICS_NAMESPACE, metricName]);
      expect(metric).toContain('service');
      expect(metric.at(-1)).toMatchObject({ stat: statistic });
      return metric[metric.indexOf('route') + 1];
    });
    expect(new Set(routes)).toEqual(new Set(ROUTES.map((route) => route.name)));
  });

  it("graphs how far the event-driven work is behind: the stream's iterator age and each work queue's oldest message", () => {
    const forwarder = Object.keys(resourcesOfType(synthesized.template, 'AWS::Lambda::Function')).find((id) => id.startsWith('ChangesForwarder'));
    expect(metricsOf('Change stream: iterator age')).toEqual([
      ['AWS/Lambda', 'IteratorAge', 'FunctionName', `<${forwarder}>`, expect.objectContaining({ stat: 'Maximum' })],
    ]);
    const queues = [
      'ChangesListChangesQueue',
      'ChangesRepricingQueue',
      'ChangesImportsQueue',
      'ChangesWebhooksQueue',
      'MarketMarketSyncQueue',
      'MarketStorefrontQueue',
      'MarketPricesQueue',
    ].map((prefix) => resourceId(synthesized.template, 'AWS::SQS::Queue', prefix));
    expect(metricsOf('Queues: age of the oldest message').map((metric) => metric.slice(0, 4))).toEqual(
      queues.map((queue) => ['AWS/SQS', 'ApproximateAgeOfOldestMessage', 'QueueName', `<${queue}.QueueName>`]),
    );
  });

  it('graphs the depth of every dead-letter queue', () => {
    const deadLetters = [
      'ChangesListChangesDeadLetters',
      'ChangesRepricingDeadLetters',
      'ChangesImportsDeadLetters',
      'ChangesWebhooksDeadLetters',
      'ChangesStreamFailures',
      'MarketMarketSyncDeadLetters',
      'MarketStorefrontDeadLetters',
      'MarketPricesDeadLetters',
    ].map((prefix) => resourceId(synthesized.template, 'AWS::SQS::Queue', prefix));
    expect(metricsOf('Dead-letter queues: messages').map((metric) => metric[3])).toEqual(deadLetters.map((queue) => `<${queue}.QueueName>`));
  });

  it("counts price changes per minute from the evaluator's log lines, with the field the evaluator writes", () => {
    // Act
    const filters = Object.values(resourcesOfType(synthesized.template, 'AWS::Logs::MetricFilter'));
    const evaluatorLogs = Object.entries(resourcesOfType(synthesized.template, 'AWS::Logs::LogGroup')).find(([id]) => id.startsWith('ChangesEvaluator'))?.[0];

    // Assess
    expect(filters).toHaveLength(1);
    expect(filters[0]!.Properties).toMatchObject({
      LogGroupName: { Ref: evaluatorLogs },
      FilterPattern: `{ $.message = "${PRICE_CHANGES_LOG.message}" }`,
      MetricTransformations: [
        { MetricNamespace: METRICS_NAMESPACE, MetricName: 'PriceChanges', MetricValue: `$.${PRICE_CHANGES_LOG.countField}`, DefaultValue: 0 },
      ],
    });
    expect(metricsOf('Price changes per minute')).toEqual([[METRICS_NAMESPACE, 'PriceChanges', expect.objectContaining({ stat: 'Sum', period: 60 })]]);
  });
});

describe("dashboard: the market loop's health", () => {
  let widgets: Widget[];
  const metricsOf = (title: string) => widgets.find((widget) => widget.properties.title === title)?.properties.metrics ?? [];
  /** A graphed metric's dimensions, as name → value. */
  const dimensionsOf = (metric: unknown[]): Record<string, unknown> => {
    const pairs = metric.slice(2, typeof metric.at(-1) === 'object' ? -1 : undefined);
    return Object.fromEntries(Array.from({ length: pairs.length / 2 }, (_, i) => [pairs[2 * i], pairs[2 * i + 1]]));
  };
  const optionsOf = (metric: unknown[]) => metric.at(-1) as { stat?: string; period?: number };

  beforeAll(() => {
    ({ widgets } = bodyOf(synthStack({ stage: 'prod' })));
  });

  it.each([
    ['Price pushes by outcome', LOOP_METRICS.pricePushes, PUSH_OUTCOMES.map((outcome) => ({ outcome }))],
    [
      'Marketplace answers by status class',
      LOOP_METRICS.marketplaceAnswers,
      MARKETPLACE_APIS.flatMap((api) => STATUS_CLASSES.map((status_class) => ({ api, status_class }))),
    ],
    ['Connections by status', LOOP_METRICS.connectionStatus, CONNECTION_STATUSES.map((status) => ({ status }))],
    ['Circuit breaker trips', LOOP_METRICS.breakerTrips, [{}]],
  ])('graphs %s: the sum of every value, per connector, never per tenant', (title, metricName, values) => {
    // Act
    const metrics = metricsOf(title);

    // Assess
    expect(metrics.map((metric) => metric.slice(0, 2))).toEqual(values.map(() => [METRICS_NAMESPACE, metricName]));
    expect(metrics.map(dimensionsOf)).toEqual(values.map((value) => ({ service: 'repricer-api', connector: 'takealot', ...value })));
    for (const metric of metrics) expect(optionsOf(metric).stat).toBe('Sum');
  });

  it("sums the connections by status over the 15 minutes between a connection's full syncs", () => {
    expect(metricsOf('Connections by status').map((metric) => optionsOf(metric).period)).toEqual(CONNECTION_STATUSES.map(() => 900));
  });

  it.each([
    ['Market view age (how late pages are read)', LOOP_METRICS.marketViewAge],
    ['Own-offer sync duration', LOOP_METRICS.syncDuration],
  ])('graphs %s as its p50 and p99', (title, metricName) => {
    const metrics = metricsOf(title);
    expect(metrics.map((metric) => [metric[1], dimensionsOf(metric), optionsOf(metric).stat])).toEqual([
      [metricName, { service: 'repricer-api', connector: 'takealot' }, 'p50'],
      [metricName, { service: 'repricer-api', connector: 'takealot' }, 'p99'],
    ]);
  });
});

/** The queue a `Fn::GetAtt [queue, Arn]` points at. */
const queueOf = (arn: unknown): string | undefined => (arn as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];

/** Work queues whose messages wait by design: their age is graphed, not alarmed at the minute. */
const WAITING_BY_DESIGN = ['ChangesImportsQueue', 'ChangesWebhooksQueue', 'MarketMarketSyncQueue', 'MarketStorefrontQueue'];
/** Of those, the ones alarmed once their oldest message is far older than they wait (stalled). */
const STALL_ALARMED = ['MarketMarketSyncQueue', 'MarketStorefrontQueue'];

/**
 * Every AWS::SQS::Queue of the stack, classified from the template itself (who reads it, who
 * dead-letters into it), so a queue added without being handed to the alarms and the dashboard
 * fails here.
 */
describe('every queue of the stack is watched', () => {
  let queues: string[];
  let workQueues: Set<string>;
  let deadLetterQueues: Set<string>;
  let widgets: Widget[];
  let alarms: CfnResource[];

  const graphedQueues = (title: string) => new Set(widgets.find((widget) => widget.properties.title === title)?.properties.metrics?.map((metric) => metric[3]));
  const asGraphed = (ids: Iterable<string>) => new Set([...ids].map((id) => `<${id}.QueueName>`));
  const alarmedQueues = (metricName: string, named: (alarmName: string) => boolean = () => true) =>
    new Set(
      alarms
        .filter((alarm) => alarm.Properties.Namespace === 'AWS/SQS' && alarm.Properties.MetricName === metricName && named(String(alarm.Properties.AlarmName)))
        .map((alarm) => queueOf((alarm.Properties.Dimensions as Array<{ Name: string; Value: unknown }>).find(({ Name }) => Name === 'QueueName')?.Value)),
    );

  beforeAll(() => {
    const synthesized = synthStack({ stage: 'prod' });
    const { template } = synthesized;
    const queueResources = resourcesOfType(template, 'AWS::SQS::Queue');
    const mappings = Object.values(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping'));
    queues = Object.keys(queueResources);
    const isQueue = (id: string | undefined): id is string => id !== undefined && queues.includes(id);
    workQueues = new Set(mappings.map((mapping) => queueOf(mapping.Properties.EventSourceArn)).filter(isQueue));
    deadLetterQueues = new Set(
      [
        ...Object.values(queueResources).map((queue) => queueOf(queue.Properties.RedrivePolicy?.deadLetterTargetArn)),
        ...mappings.map((mapping) => queueOf(mapping.Properties.DestinationConfig?.OnFailure?.Destination)),
      ].filter(isQueue),
    );
    ({ widgets } = bodyOf(synthesized));
    alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'));
  });

  it('is either read by a function (work) or where failed work goes (dead letters)', () => {
    expect(workQueues.size).toBeGreaterThan(0);
    expect(deadLetterQueues.size).toBeGreaterThan(0);
    expect(queues.filter((id) => !workQueues.has(id) && !deadLetterQueues.has(id))).toEqual([]);
  });

  it('is on the dashboard: a work queue by the age of its oldest message, a dead-letter queue by its depth', () => {
    expect(graphedQueues('Queues: age of the oldest message')).toEqual(asGraphed(workQueues));
    expect(graphedQueues('Dead-letter queues: messages')).toEqual(asGraphed(deadLetterQueues));
  });

  it('has a depth alarm if it holds dead letters', () => {
    expect(alarmedQueues('ApproximateNumberOfMessagesVisible')).toEqual(deadLetterQueues);
  });

  it('has an age alarm if it holds work, unless its messages wait by design', () => {
    const waitingByDesign = [...workQueues].filter((id) => WAITING_BY_DESIGN.some((prefix) => id.startsWith(prefix)));
    expect(waitingByDesign).toHaveLength(WAITING_BY_DESIGN.length);
    expect(alarmedQueues('ApproximateAgeOfOldestMessage', (name) => name.endsWith('Age'))).toEqual(
      new Set([...workQueues].filter((id) => !waitingByDesign.includes(id))),
    );
  });

  it('has a stall alarm instead where its messages wait by design but a stalled queue would go unnoticed', () => {
    const stallAlarmed = [...workQueues].filter((id) => STALL_ALARMED.some((prefix) => id.startsWith(prefix)));
    expect(stallAlarmed).toHaveLength(STALL_ALARMED.length);
    expect(alarmedQueues('ApproximateAgeOfOldestMessage', (name) => name.endsWith('Stalled'))).toEqual(new Set(stallAlarmed));
  });
});
