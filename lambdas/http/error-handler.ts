import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { isConflict } from '../data/table/transactions.js';
import { logger } from '../observability/logger.js';
import { HttpProblem } from './errors.js';
import { problem, STANDARD_PROBLEMS, type Problem } from './problem.js';
import { problemResponse } from './responses.js';
import { RETRY_AFTER_SECONDS, UNAVAILABLE_HEADERS } from './unavailable.js';

export { RETRY_AFTER_SECONDS };

/** DynamoDB errors that mean "slow down": still failing after the SDK's own retries. */
const THROTTLING_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TransactionConflictException',
  // A write of the data layer that kept losing races with the same client's other writes.
  'ContentionError',
]);
/**
 * Every attempt of a DynamoDB call ran past the SDK's connection or request timeout
 * (data/table/dynamo.ts): DynamoDB is unreachable or not answering, and a later retry may succeed.
 */
const UNAVAILABLE_ERRORS = new Set(['TimeoutError']);

interface StatusError {
  statusCode?: number;
  name?: string;
  message?: string;
  cause?: { package?: string };
}

/** Maps the errors Middy's own middlewares throw onto our problem bodies. */
const fromMiddyError = (error: StatusError): Problem | undefined => {
  if (error.cause?.package === undefined || typeof error.statusCode !== 'number') return undefined;
  if (error.statusCode === 415) return STANDARD_PROBLEMS.unsupportedMediaType;
  if (error.statusCode === 422) {
    return problem(400, error.message === 'Forbidden key in JSON body' ? 'The request body contains a forbidden key.' : 'The request body is not valid JSON.');
  }
  return undefined;
};

/**
 * The only place errors become responses. 4xx problems are shown as thrown; anything
 * unexpected is logged and answered with a generic body, so no stack trace, SDK message,
 * table name or key ever reaches a client.
 */
export const problemErrorHandler = (): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  onError: (request) => {
    const error = request.error as (Error & StatusError) | null;
    if (error instanceof HttpProblem) {
      request.response = problemResponse(error.problem, { ...error.headers });
      return;
    }
    const middyProblem = error ? fromMiddyError(error) : undefined;
    if (middyProblem) {
      request.response = problemResponse(middyProblem);
      return;
    }
    if (error?.name && UNAVAILABLE_ERRORS.has(error.name)) {
      logger.warn('DynamoDB did not answer in time after retries', { errorName: error.name });
      request.response = problemResponse(STANDARD_PROBLEMS.unavailable, { ...UNAVAILABLE_HEADERS });
      return;
    }
    if ((error?.name && THROTTLING_ERRORS.has(error.name)) || isConflict(error)) {
      // A transaction that kept losing races with the same client's other writes is contention,
      // not a bug: the client may retry, like after throttling.
      logger.warn('DynamoDB throttled or contended after retries', { errorName: error?.name });
      request.response = problemResponse(STANDARD_PROBLEMS.unavailable, { ...UNAVAILABLE_HEADERS });
      return;
    }
    logger.error('Unhandled error', { error: error ?? undefined });
    request.response = problemResponse(STANDARD_PROBLEMS.internal);
  },
});
