/**
 * What an operator sees of each request: log lines that carry the API Gateway request id as
 * `correlation_id` (the `requestId` of the access log and the `x-amzn-RequestId` response
 * header), and per-route metrics in CloudWatch embedded metric format.
 */
import { METRICS_KEY } from '@aws-lambda-powertools/commons';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../observability/logger.js';
import { routeNameOf } from './route-name.js';

export { routeNameOf, UNKNOWN_ROUTE } from './route-name.js';

export { createMetrics, METRICS_NAMESPACE } from '../observability/metrics.js';
export const ROUTE_DIMENSION = 'route';
/**
 * A queue message dropped because SQS would never take it (lambdas/functions/forward-changes/forward.ts),
 * counted under the service dimension alone so one alarm watches every queue; the log line
 * names the queue, tenant and key.
 */
export const REFUSED_QUEUE_MESSAGES_METRIC = 'RefusedQueueMessages';
/** One data point per request each: the averages of the error counts are error rates. */
export const REQUEST_METRICS = {
  requests: 'Requests',
  clientErrors: 'ClientErrors',
  serverErrors: 'ServerErrors',
  latency: 'Latency',
} as const;

type ApiRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult>;
const STARTED_AT = 'repricer.observability.startedAt';

const record = (metrics: Metrics, route: string, request: ApiRequest): void => {
  const started = (request.internal as Record<string, unknown>)[STARTED_AT];
  const status = request.response?.statusCode ?? 500;
  metrics.addDimension(ROUTE_DIMENSION, route);
  metrics.addMetric(REQUEST_METRICS.requests, MetricUnit.Count, 1);
  metrics.addMetric(REQUEST_METRICS.clientErrors, MetricUnit.Count, status >= 400 && status < 500 ? 1 : 0);
  metrics.addMetric(REQUEST_METRICS.serverErrors, MetricUnit.Count, status >= 500 ? 1 : 0);
  if (typeof started === 'number') metrics.addMetric(REQUEST_METRICS.latency, MetricUnit.Milliseconds, performance.now() - started);
};

/**
 * Tags the request's log lines and records its metrics once its response is known. Register it
 * after Powertools' `logMetrics` (which flushes what it records) and before the error handler
 * (whose onError produces the response it measures).
 */
export const requestObserver = (metrics: Metrics, route?: string): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => {
  const observe = (request: ApiRequest) => record(metrics, route ?? routeNameOf(request.event), request);
  return {
    before: (request) => {
      const internal = request.internal as Record<string, unknown>;
      internal[STARTED_AT] = performance.now();
      const requestId = request.event.requestContext?.requestId;
      if (requestId) logger.setCorrelationId(requestId);
      logger.appendKeys({ route: route ?? routeNameOf(request.event) });
      // A Powertools middleware that answers early (an idempotent replay) skips every `after`
      // and calls this flush instead: record the request there first.
      const flush = internal[METRICS_KEY];
      if (typeof flush === 'function') {
        internal[METRICS_KEY] = async (early: ApiRequest) => {
          observe(early);
          await (flush as (r: ApiRequest) => unknown)(early);
        };
      }
    },
    after: observe,
    onError: observe,
  };
};
