import middy from '@middy/core';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { Context } from 'aws-lambda';
import { loopMetricsFlush } from './loop-metrics.js';
import { tracer } from './tracer.js';

/**
 * An event handler (stream or queue consumer) as Lambda runs it: its invocation traced, so its
 * SDK calls show under it in X-Ray, and the market loop's metrics it recorded published at its
 * end. Responses are not captured: they hold client data.
 */
export const traced = <E, R>(handler: (event: E) => Promise<R>): ((event: E, context?: Context) => Promise<R>) => {
  const wrapped = middy<E, R, Error, Context>()
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(loopMetricsFlush<E, R>())
    .handler(handler);
  // Lambda always passes a context; unit tests and the local runtime may not, which middy
  // accepts (the tracer is off there and reads nothing of it).
  return (event, context) => wrapped(event, context as Context);
};
