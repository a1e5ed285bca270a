import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { PROBLEM_CONTENT_TYPE, STANDARD_PROBLEMS, WWW_AUTHENTICATE, problem, type Problem } from '../lambdas/http/problem.js';
import { SECURITY_HEADERS } from '../lambdas/http/responses.js';
import { UNAVAILABLE_HEADERS } from '../lambdas/http/unavailable.js';
import { QUOTA_RETRY_AFTER_SECONDS, THROTTLED_RETRY_AFTER_SECONDS } from '../lambdas/config/retry-after.js';

/**
 * The errors API Gateway answers itself (before or instead of a Lambda) get the same
 * problem+json bodies and headers as the errors the Lambdas return, so a client cannot tell
 * which layer answered.
 */
export interface GatewayResponseDefinition {
  readonly type: ResponseType;
  readonly problem: Problem;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A fallback for the 4xx types not listed below (e.g. IAM signature errors, unused here). */
export const GENERIC_CLIENT_ERROR = problem(400, 'The request was rejected.');

/**
 * Each response sets its status to its body's `status`. The DEFAULT_* entries set it for every
 * type not listed, so no gateway answer carries a body whose status disagrees with the HTTP one.
 */
export const GATEWAY_RESPONSES: readonly GatewayResponseDefinition[] = [
  {
    type: ResponseType.UNAUTHORIZED,
    problem: STANDARD_PROBLEMS.unauthorized,
    headers: { 'WWW-Authenticate': WWW_AUTHENTICATE },
  },
  { type: ResponseType.ACCESS_DENIED, problem: STANDARD_PROBLEMS.forbidden },
  { type: ResponseType.INVALID_API_KEY, problem: STANDARD_PROBLEMS.forbidden },
  { type: ResponseType.WAF_FILTERED, problem: STANDARD_PROBLEMS.forbidden },
  // A REST API answers an unknown path with "Missing Authentication Token" (403); it is a 404.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, problem: STANDARD_PROBLEMS.notFound },
  { type: ResponseType.RESOURCE_NOT_FOUND, problem: STANDARD_PROBLEMS.notFound },
  { type: ResponseType.REQUEST_TOO_LARGE, problem: STANDARD_PROBLEMS.tooLarge },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, problem: STANDARD_PROBLEMS.unsupportedMediaType },
  {
    type: ResponseType.THROTTLED,
    problem: STANDARD_PROBLEMS.throttled,
    headers: { 'Retry-After': THROTTLED_RETRY_AFTER_SECONDS },
  },
  {
    type: ResponseType.QUOTA_EXCEEDED,
    problem: STANDARD_PROBLEMS.quotaExceeded,
    headers: { 'Retry-After': QUOTA_RETRY_AFTER_SECONDS },
  },
  { type: ResponseType.INTEGRATION_TIMEOUT, problem: STANDARD_PROBLEMS.timeout },
  /**
   * The authorizer throws anything but 'Unauthorized' only when it could not decide: DynamoDB
   * timed out or throttled after retries (lambdas/functions/authorizer/handler.ts). API Gateway answers
   * an authorizer that throws or times out with AUTHORIZER_CONFIGURATION_ERROR (500 by
   * default); both authorizer-error types get the same 503 and Retry-After as a route whose
   * own DynamoDB call failed that way, so the outage looks the same whatever the cache held.
   */
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, problem: STANDARD_PROBLEMS.unavailable, headers: UNAVAILABLE_HEADERS },
  { type: ResponseType.AUTHORIZER_FAILURE, problem: STANDARD_PROBLEMS.unavailable, headers: UNAVAILABLE_HEADERS },
  { type: ResponseType.DEFAULT_4XX, problem: GENERIC_CLIENT_ERROR },
  { type: ResponseType.DEFAULT_5XX, problem: STANDARD_PROBLEMS.internal },
];

/**
 * Gateway response header values are mapping expressions: a static value is written in single
 * quotes, so a value that itself holds a single quote cannot be expressed.
 */
export const staticHeaderValue = (value: string): string => {
  if (value.includes("'")) throw new Error(`Header value cannot contain a single quote: ${value}`);
  return `'${value}'`;
};

/**
 * Templates are Velocity: `$` and `#` would be interpreted, so bodies must not contain them.
 */
export const staticTemplate = (body: Problem): string => {
  const text = JSON.stringify(body);
  if (/[$#]/.test(text)) throw new Error(`Problem body cannot contain '$' or '#': ${text}`);
  return text;
};

export const headersFor = (definition: GatewayResponseDefinition): Record<string, string> => {
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'Content-Type': PROBLEM_CONTENT_TYPE,
    ...definition.headers,
  };
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, staticHeaderValue(value)]));
};

export const addGatewayResponses = (api: RestApi): void => {
  for (const definition of GATEWAY_RESPONSES) {
    api.addGatewayResponse(definition.type.responseType, {
      type: definition.type,
      statusCode: String(definition.problem.status),
      responseHeaders: headersFor(definition),
      templates: { 'application/json': staticTemplate(definition.problem) },
    });
  }
};
