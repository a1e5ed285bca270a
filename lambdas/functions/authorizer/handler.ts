/**
 * Lambda REQUEST authorizer: HTTP Basic against the client items of the table.
 *
 * - Valid credentials: an Allow policy for every method and path of the stage, so the result
 *   API Gateway caches (keyed on the Authorization header) serves all routes; the tenant
 *   travels in `context`.
 * - Missing, malformed or wrong credentials: `Error('Unauthorized')`, which API Gateway turns
 *   into its UNAUTHORIZED (401) gateway response.
 * - Anything else (DynamoDB unreachable or throttled after retries): a different error, which
 *   API Gateway does not cache and answers with its authorizer-error response, set to 503 with
 *   Retry-After (lib/gateway-responses.ts) like a route's own DynamoDB failure. A 401 there
 *   would tell a client with good credentials that they are wrong, and an outage must never
 *   count as a failed login.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authenticate, type AuthenticatedClient } from '../../auth/authorize.js';
import { tenantContext } from '../../auth/tenant.js';
import { routeNameOf } from '../../http/route-name.js';
import { logger } from '../../observability/logger.js';
import { tracer } from '../../observability/tracer.js';

/** The exact message API Gateway maps to 401; the local server matches on it too. */
export const UNAUTHORIZED = 'Unauthorized';

export class AuthorizerFailure extends Error {
  constructor() {
    super('Authorizer failed');
    this.name = 'AuthorizerFailure';
  }
}

const headerValue = (headers: APIGatewayRequestAuthorizerEvent['headers'], name: string): string | undefined => {
  const wanted = name.toLowerCase();
  const entry = Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === wanted);
  return entry?.[1];
};

/**
 * Widens `arn:aws:execute-api:region:account:apiId/stage/VERB/path` to every verb and path of
 * that stage; an ARN of another shape is kept as is.
 */
export const stageWildcardArn = (methodArn: string): string => {
  const arnParts = methodArn.split(':');
  const resource = arnParts[5];
  if (arnParts.length !== 6 || resource === undefined) return methodArn;
  const [apiId, stage] = resource.split('/');
  if (!apiId || !stage) return methodArn;
  return [...arnParts.slice(0, 5), `${apiId}/${stage}/*/*`].join(':');
};

/**
 * The authorizer's log lines carry its own invocation (function name, request id: set by
 * injectLambdaContext), the request's correlation id and the route it guards, and nothing left
 * over from an earlier invocation in the same process.
 */
const authorizerLogContext = (): MiddlewareObj<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult> => ({
  before: ({ event }) => {
    logger.resetKeys();
    const requestId = event.requestContext?.requestId;
    if (requestId) logger.setCorrelationId(requestId);
    logger.appendKeys({ route: routeNameOf(event) });
  },
});

export const authorize = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  let tenant: AuthenticatedClient | undefined;
  try {
    tenant = await authenticate(headerValue(event.headers, 'authorization'), event.requestContext?.identity?.sourceIp);
  } catch (error) {
    logger.error('Authorizer could not decide', { errorName: (error as Error).name, error: error as Error });
    throw new AuthorizerFailure();
  }
  if (tenant === undefined) throw new Error(UNAUTHORIZED);
  return {
    principalId: tenant.clientId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageWildcardArn(event.methodArn) }],
    },
    context: tenantContext(tenant),
    // The API key of the client in the usage plan (the API's key source is AUTHORIZER).
    ...(tenant.usageKey === undefined ? {} : { usageIdentifierKey: tenant.usageKey }),
  };
};

export const handler = middy<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>()
  .use(captureLambdaHandler(tracer, { captureResponse: false }))
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(authorizerLogContext())
  .handler(authorize);
