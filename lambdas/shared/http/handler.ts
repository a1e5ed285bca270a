import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { bodyLimit } from './body-limit.js';
import { problemErrorHandler } from './error-handler.js';

export type ApiHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/**
 * The middleware chain every route shares. The error handler is registered first so that its
 * onError runs last, after every other middleware had its say.
 */
export const httpHandler = (fn: ApiHandler, options: { jsonBody?: boolean } = {}) => {
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(problemErrorHandler())
    .use(httpHeaderNormalizer());
  if (options.jsonBody) chain.use(bodyLimit()).use(httpJsonBodyParser());
  return chain.handler(fn);
};
