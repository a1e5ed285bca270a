/**
 * The market loop's metrics, read from stdout as CloudWatch would: one EMF line per metric and
 * dimension values, dimensions from the closed lists only (never a tenant), published once the
 * invocation ends.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';

process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.POWERTOOLS_SERVICE_NAME = 'repricer-api';

const { loopMetrics, publishLoopMetrics, LOOP_METRICS, statusClassOf } = await import('../../../lambdas/observability/loop-metrics.js');
const { METRICS_NAMESPACE } = await import('../../../lambdas/http/observability.js');
const { traced } = await import('../../../lambdas/observability/traced.js');

type Line = Record<string, any>;

/** The EMF lines written to stdout while `action` runs. */
const emitted = async (action: () => unknown): Promise<Line[]> => {
  const written: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await action();
  } finally {
    spy.mockRestore();
  }
  return written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line)
    .filter((line) => line._aws?.CloudWatchMetrics?.[0]?.Namespace === METRICS_NAMESPACE);
};

const dimensionsOf = (line: Line): string[][] => line._aws.CloudWatchMetrics[0].Dimensions;
const metricOf = (line: Line): { Name: string; Unit: string } => line._aws.CloudWatchMetrics[0].Metrics[0];

/** Every kind of call, once. */
const everyCall = () => {
  loopMetrics.pushOutcome('takealot', 'accepted');
  loopMetrics.pushFailed('takealot', Object.assign(new Error('no'), { name: 'MarketplaceUnavailable' }));
  loopMetrics.breakerTripped('takealot');
  loopMetrics.connectionStatus('takealot', 'paused');
  loopMetrics.marketplaceAnswer('takealot', 'seller', '2xx');
  loopMetrics.syncDuration('takealot', 1234);
  loopMetrics.marketViewAge('takealot', 95);
  publishLoopMetrics();
};

const ALLOWED_DIMENSIONS = new Set(['service', 'connector', 'outcome', 'status', 'api', 'status_class']);

describe('the market loop metrics', () => {
  it('use the service, connector and outcome or status dimensions only: never a tenant', async () => {
    // Act
    const lines = await emitted(everyCall);

    // Assert
    expect([...new Set(lines.map((line) => metricOf(line).Name))].sort()).toEqual(Object.values(LOOP_METRICS).sort());
    for (const line of lines) {
      const [names] = dimensionsOf(line);
      expect(names).toContain('service');
      expect(names).toContain('connector');
      expect(names!.every((name) => ALLOWED_DIMENSIONS.has(name))).toBe(true);
      const metricNames = Object.values(LOOP_METRICS) as string[];
      expect(Object.keys(line).filter((key) => !metricNames.includes(key) && /client|tenant|uid|offer|product/i.test(key))).toEqual([]);
    }
  });

  it('name each metric with its unit and dimensions', async () => {
    // Act
    const lines = await emitted(everyCall);

    // Assert
    const byName = new Map(lines.filter((line) => line.outcome !== 'fault').map((line) => [metricOf(line).Name, line]));
    const shape = (name: string) => {
      const line = byName.get(name)!;
      const [names] = dimensionsOf(line);
      return { unit: metricOf(line).Unit, dimensions: Object.fromEntries(names!.map((dimension) => [dimension, line[dimension]])), value: line[name] };
    };
    expect(shape(LOOP_METRICS.pricePushes)).toEqual({
      unit: 'Count',
      dimensions: { service: 'repricer-api', connector: 'takealot', outcome: 'accepted' },
      value: 1,
    });
    expect(shape(LOOP_METRICS.breakerTrips)).toEqual({ unit: 'Count', dimensions: { service: 'repricer-api', connector: 'takealot' }, value: 1 });
    expect(shape(LOOP_METRICS.connectionStatus).dimensions).toEqual({ service: 'repricer-api', connector: 'takealot', status: 'paused' });
    expect(shape(LOOP_METRICS.marketplaceAnswers).dimensions).toEqual({ service: 'repricer-api', connector: 'takealot', api: 'seller', status_class: '2xx' });
    expect(shape(LOOP_METRICS.syncDuration)).toMatchObject({ unit: 'Milliseconds', value: 1234 });
    expect(shape(LOOP_METRICS.marketViewAge)).toMatchObject({ unit: 'Seconds', value: 95 });
  });

  it('keep the reason of a failed push in the line, not as a dimension', async () => {
    // Act
    const lines = await emitted(() => {
      loopMetrics.pushFailed('takealot', Object.assign(new Error('no'), { name: 'MarketplaceMalformed' }));
      publishLoopMetrics();
    });

    // Assert
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ outcome: 'fault', reason: 'malformed' });
    expect(dimensionsOf(lines[0]!)[0]).not.toContain('reason');
  });

  it.each([
    ['GateClosed', 'held'],
    ['MarketplaceUnauthorized', 'unauthorized'],
    ['MarketplaceRejected', 'refused'],
    ['MarketplaceRateLimited', 'rate_limited'],
    ['MarketplaceUnavailable', 'fault'],
    ['TypeError', 'fault'],
  ])('count a push that failed with %s as %s', async (name, outcome) => {
    const [line] = await emitted(() => {
      loopMetrics.pushFailed('takealot', Object.assign(new Error('no'), { name }));
      publishLoopMetrics();
    });
    expect(line?.outcome).toBe(outcome);
  });

  it('sum counts into one line per dimension values, and keep every duration', async () => {
    // Act
    const lines = await emitted(() => {
      for (let i = 0; i < 3; i++) loopMetrics.marketplaceAnswer('takealot', 'storefront', '429');
      loopMetrics.marketplaceAnswer('takealot', 'storefront', '2xx');
      loopMetrics.syncDuration('takealot', 10);
      loopMetrics.syncDuration('takealot', 30);
      publishLoopMetrics();
    });

    // Assert
    const answers = lines.filter((line) => metricOf(line).Name === LOOP_METRICS.marketplaceAnswers);
    expect(answers.map((line) => [line.status_class, line[LOOP_METRICS.marketplaceAnswers]])).toEqual([
      ['429', 3],
      ['2xx', 1],
    ]);
    expect(lines.find((line) => metricOf(line).Name === LOOP_METRICS.syncDuration)?.[LOOP_METRICS.syncDuration]).toEqual([10, 30]);
  });

  it('count under `unknown` a connector that is not a connector uid, so no caller opens an unbounded dimension', async () => {
    const [line] = await emitted(() => {
      loopMetrics.breakerTripped('Tenant 42 <a@example.com>');
      publishLoopMetrics();
    });
    expect(line?.connector).toBe('unknown');
  });

  it('publish nothing, and write nothing, when nothing was recorded', async () => {
    expect(await emitted(publishLoopMetrics)).toEqual([]);
  });

  it('are published when an event handler ends, answered or failed', async () => {
    // Arrange
    const handler = traced(async (fail: boolean) => {
      loopMetrics.breakerTripped('takealot');
      if (fail) throw new Error('down');
    });

    // Act & Assert
    expect(await emitted(() => handler(false))).toHaveLength(1);
    expect(await emitted(() => handler(true).catch(() => undefined))).toHaveLength(1);
  });

  it('class HTTP statuses, with 429 apart', () => {
    expect([200, 204, 304, 400, 404, 429, 500, 503].map(statusClassOf)).toEqual(['2xx', '2xx', '3xx', '4xx', '4xx', '429', '5xx', '5xx']);
  });
});

describe('the call sites', () => {
  /** Every `loopMetrics.<name>(first argument` under lambdas/. */
  const callsIn = (dir: string): { file: string; call: string; first: string }[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return callsIn(path);
      if (!entry.name.endsWith('.ts') || entry.name === 'loop-metrics.ts') return [];
      return [...readFileSync(path, 'utf8').matchAll(/loopMetrics\.(\w+)\(([^,)]*)/g)].map((match) => ({
        file: path,
        call: match[1]!,
        first: match[2]!.trim(),
      }));
    });

  it('name the connector type first, never a tenant or a connection', () => {
    const calls = callsIn('lambdas');
    expect(calls.length).toBeGreaterThanOrEqual(8);
    for (const { first } of calls) expect(first).toMatch(/(^|\.)connector$|^TAKEALOT_CONNECTOR_UID$/);
  });
});
