/**
 * The Lambda context the local event-source drivers pass with each invocation, so handlers
 * wrapped in Middy or Powertools (which read the request id, the function name and the
 * remaining time) run locally exactly as they are deployed.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './api-event.js';

/**
 * Only what `getRemainingTimeInMillis` reports: nothing is cut off locally, a slow handler just
 * holds its shard or message group for longer, as a slow function would on AWS.
 */
const LOCAL_TIMEOUT_MS = 60_000;

/** The context of one invocation; the local HTTP server passes its request id and the route's timeout. */
export const localLambdaContext = (functionName: string, awsRequestId: string = randomUUID(), timeoutMs = LOCAL_TIMEOUT_MS): Context => {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};
