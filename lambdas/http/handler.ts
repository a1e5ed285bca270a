import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../observability/logger.js';
import { loopMetricsFlush } from '../observability/loop-metrics.js';
import { tracer } from '../observability/tracer.js';
import { bodyLimit } from './body-limit.js';
import type { Problem } from './problem.js';
import { problemErrorHandler } from './error-handler.js';
import { createMetrics, requestObserver } from './observability.js';

export type ApiHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

export interface HttpHandlerOptions {
  readonly jsonBody?: boolean;
  /** The metrics dimension and log key; found in the route table by the event's resource when not given. */
  readonly route?: string;
  /** A body that is not JSON, with its own size limit (`jsonBody` applies the 16 KiB one). */
  readonly rawBody?: { readonly maxBytes: number; readonly tooLarge: Problem };
}

/**
 * The middleware chain every route shares. `onError` runs in reverse order of registration: the
 * error handler turns the error into a response first, then the observer measures that
 * response, then the metrics are flushed and the log keys reset.
 */
export const httpHandler = (fn: ApiHandler, options: HttpHandlerOptions = {}) => {
  const metrics = createMetrics();
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    // The marketplace's answers to a key check (put-connection) are the market loop's metrics.
    .use(loopMetricsFlush())
    .use(requestObserver(metrics, options.route))
    .use(problemErrorHandler())
    .use(httpHeaderNormalizer());
  if (options.jsonBody) chain.use(bodyLimit()).use(httpJsonBodyParser());
  else if (options.rawBody) chain.use(bodyLimit(options.rawBody.maxBytes, options.rawBody.tooLarge));
  return chain.handler(fn);
};
