/**
 * The market loop's health as CloudWatch metrics, in embedded metric format through Powertools
 * (docs/operations.md, "Market loop metrics"; the alarms and the dashboard in lib/constructs).
 *
 * Dimensions are the connector type (an operator-chosen name such as `takealot`) and an
 * outcome, status or status class, each from a closed list: never a tenant, a connection or an
 * offer. A dimension per tenant would be a metric per tenant and would name clients in
 * CloudWatch; who is affected is in the log lines, which carry it already.
 *
 * A call only records: the event handlers publish what was recorded once per invocation
 * (traced.ts; the API chain for the functions that check a key), so a run of a hundred pushes
 * is a few log lines, not a hundred. Counts are summed; durations and ages keep each value, so
 * CloudWatch's percentiles see every one.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import type { ConnectionStatus } from '../domain/connections.js';
import { createMetrics } from './metrics.js';

export const LOOP_METRICS = {
  /** Count, per connector and outcome: price pushes (one per batch sent, or not sent). */
  pricePushes: 'PricePushes',
  /** Count, per connector: the circuit breaker paused a connection. */
  breakerTrips: 'BreakerTrips',
  /** Count, per connector and status: a connection's status each time the sync worker records it. */
  connectionStatus: 'ConnectionStatus',
  /** Count, per connector, API and status class: every HTTP exchange with the marketplace. */
  marketplaceAnswers: 'MarketplaceAnswers',
  /** Milliseconds, per connector: one full own-offer sync that completed. */
  syncDuration: 'OwnOfferSyncDuration',
  /** Seconds, per connector: how far behind its schedule a product page was read. */
  marketViewAge: 'MarketViewAge',
} as const;

export const LOOP_DIMENSIONS = {
  connector: 'connector',
  outcome: 'outcome',
  status: 'status',
  api: 'api',
  statusClass: 'status_class',
} as const;

/** What became of a price push: accepted by the marketplace, or why it was not. */
export const PUSH_OUTCOMES = ['accepted', 'refused', 'fault', 'rate_limited', 'unauthorized', 'held'] as const;
export type PushOutcome = (typeof PUSH_OUTCOMES)[number];
/** The failed pushes the alarm counts: the marketplace refused the batch, or could not be reached or understood. */
export const FAILED_PUSH_OUTCOMES = ['refused', 'fault'] as const satisfies readonly PushOutcome[];
/** Why, where the outcome alone does not say: kept in the log line (metadata), not as a dimension. */
export type PushReason = 'gate_closed' | 'unavailable' | 'malformed' | 'in_doubt' | 'offer_gone' | 'out_of_bounds' | 'unexpected';

export const MARKETPLACE_APIS = ['seller', 'storefront'] as const;
export type MarketplaceApi = (typeof MARKETPLACE_APIS)[number];
/** 429 apart from the other 4xx: the marketplace asking to slow down is not a refusal. */
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '429', '5xx', 'timeout', 'unreachable'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

export const statusClassOf = (status: number): StatusClass =>
  status === 429 ? '429' : status >= 500 ? '5xx' : status >= 400 ? '4xx' : status >= 300 ? '3xx' : '2xx';

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/** A connector type's uid (domain/records.ts); anything else is counted as `unknown`, so no caller's mistake opens an unbounded dimension. */
const CONNECTOR_UID = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const connectorOf = (connector: string): string => (CONNECTOR_UID.test(connector) ? connector : 'unknown');

/** Values a line carries at most: under Powertools' 100, where it would publish on its own. */
const MAX_VALUES_PER_LINE = 50;

interface Series {
  readonly name: string;
  readonly unit: Unit;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly metadata: Readonly<Record<string, string>>;
  /** Counts keep one value, their sum. */
  readonly summed: boolean;
  readonly values: number[];
}

const publisher = createMetrics();
const pending = new Map<string, Series>();

const publish = (series: Series): void => {
  for (const [name, value] of Object.entries(series.dimensions)) publisher.addDimension(name, value);
  for (const [key, value] of Object.entries(series.metadata)) publisher.addMetadata(key, value);
  for (const value of series.values) publisher.addMetric(series.name, series.unit, value);
  publisher.publishStoredMetrics();
};

const record = (
  name: string,
  unit: Unit,
  dimensions: Record<string, string>,
  value: number,
  options: { readonly summed?: boolean; readonly metadata?: Record<string, string> } = {},
): void => {
  if (!Number.isFinite(value)) return;
  const metadata = options.metadata ?? {};
  const key = JSON.stringify([name, dimensions, metadata]);
  let series = pending.get(key);
  if (!series) {
    series = { name, unit, dimensions, metadata, summed: options.summed ?? false, values: [] };
    pending.set(key, series);
  }
  if (series.summed) series.values[0] = (series.values[0] ?? 0) + value;
  else series.values.push(value);
  if (series.values.length >= MAX_VALUES_PER_LINE) {
    pending.delete(key);
    publish(series);
  }
};

const count = (name: string, dimensions: Record<string, string>, metadata?: Record<string, string>) =>
  record(name, MetricUnit.Count, dimensions, 1, { summed: true, ...(metadata ? { metadata } : {}) });

/** The outcome a push fault stands for, by the port's fault names (and the sender's own GateClosed). */
const faultOutcomes: Readonly<Record<string, { outcome: PushOutcome; reason?: PushReason }>> = {
  GateClosed: { outcome: 'held', reason: 'gate_closed' },
  MarketplaceUnauthorized: { outcome: 'unauthorized' },
  MarketplaceRejected: { outcome: 'refused' },
  MarketplaceRateLimited: { outcome: 'rate_limited' },
  MarketplaceUnavailable: { outcome: 'fault', reason: 'unavailable' },
  MarketplaceMalformed: { outcome: 'fault', reason: 'malformed' },
  // The sender's own: a fault after the request left (confirmed before any push again), a 404, every price out of bounds at the attempt.
  PushInDoubt: { outcome: 'fault', reason: 'in_doubt' },
  MarketplaceNotFound: { outcome: 'refused', reason: 'offer_gone' },
  NothingLeft: { outcome: 'held', reason: 'out_of_bounds' },
};

export const loopMetrics = {
  pushOutcome(connector: string, outcome: PushOutcome, reason?: PushReason): void {
    count(
      LOOP_METRICS.pricePushes,
      { [LOOP_DIMENSIONS.connector]: connectorOf(connector), [LOOP_DIMENSIONS.outcome]: outcome },
      reason ? { reason } : undefined,
    );
  },
  /** A push that did not go through, counted by what its error says. */
  pushFailed(connector: string, error: unknown): void {
    const name = error instanceof Error ? error.name : '';
    const { outcome, reason } = faultOutcomes[name] ?? { outcome: 'fault', reason: 'unexpected' };
    loopMetrics.pushOutcome(connector, outcome, reason);
  },
  breakerTripped(connector: string): void {
    count(LOOP_METRICS.breakerTrips, { [LOOP_DIMENSIONS.connector]: connectorOf(connector) });
  },
  connectionStatus(connector: string, status: ConnectionStatus): void {
    count(LOOP_METRICS.connectionStatus, { [LOOP_DIMENSIONS.connector]: connectorOf(connector), [LOOP_DIMENSIONS.status]: status });
  },
  marketplaceAnswer(connector: string, api: MarketplaceApi, statusClass: StatusClass): void {
    count(LOOP_METRICS.marketplaceAnswers, {
      [LOOP_DIMENSIONS.connector]: connectorOf(connector),
      [LOOP_DIMENSIONS.api]: api,
      [LOOP_DIMENSIONS.statusClass]: statusClass,
    });
  },
  syncDuration(connector: string, ms: number): void {
    record(LOOP_METRICS.syncDuration, MetricUnit.Milliseconds, { [LOOP_DIMENSIONS.connector]: connectorOf(connector) }, ms);
  },
  marketViewAge(connector: string, seconds: number): void {
    record(LOOP_METRICS.marketViewAge, MetricUnit.Seconds, { [LOOP_DIMENSIONS.connector]: connectorOf(connector) }, Math.max(0, seconds));
  },
};

/** Writes what was recorded (one EMF line per metric and dimension values) and forgets it. */
export const publishLoopMetrics = (): void => {
  const series = [...pending.values()];
  pending.clear();
  for (const one of series) publish(one);
};

/** Publishes what an invocation recorded once it ends, answered or failed (the middy chains of traced.ts and http/handler.ts). */
export const loopMetricsFlush = <E, R>(): MiddlewareObj<E, R> => ({
  after: publishLoopMetrics,
  onError: publishLoopMetrics,
});
