import { AuthorizationType, MockIntegration, PassthroughBehavior, type IResource, type Method } from 'aws-cdk-lib/aws-apigateway';
import { PROBLEM_CONTENT_TYPE, STANDARD_PROBLEMS } from '../../lambdas/http/problem.js';
import { SECURITY_HEADERS } from '../../lambdas/http/responses.js';
import { staticHeaderValue, staticTemplate } from '../gateway-responses.js';

/**
 * Request media types the mock answers for. A mock takes its status from the request
 * template; any other type is refused with 415 (PassthroughBehavior.NEVER) rather than
 * passed through to a mock that could not parse it.
 */
export const MOCK_REQUEST_MEDIA_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/xml',
  'text/xml',
  'application/octet-stream',
] as const;

export const allowHeaderValue = (methods: readonly string[]): string => [...methods].sort().join(', ');

/**
 * An `ANY` method answering 405 with an `Allow` header. API Gateway prefers a resource's
 * explicit methods over `ANY`, so only the methods the API does not serve reach it.
 */
export const addMethodNotAllowed = (resource: IResource, allowedMethods: readonly string[]): Method => {
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'Content-Type': PROBLEM_CONTENT_TYPE,
    Allow: allowHeaderValue(allowedMethods),
  };
  const requestTemplate = JSON.stringify({ statusCode: STANDARD_PROBLEMS.methodNotAllowed.status });
  const integration = new MockIntegration({
    passthroughBehavior: PassthroughBehavior.NEVER,
    requestTemplates: Object.fromEntries(MOCK_REQUEST_MEDIA_TYPES.map((type) => [type, requestTemplate])),
    integrationResponses: [
      {
        statusCode: String(STANDARD_PROBLEMS.methodNotAllowed.status),
        responseParameters: Object.fromEntries(Object.entries(headers).map(([name, value]) => [`method.response.header.${name}`, staticHeaderValue(value)])),
        responseTemplates: { 'application/json': staticTemplate(STANDARD_PROBLEMS.methodNotAllowed) },
      },
    ],
  });
  return resource.addMethod('ANY', integration, {
    authorizationType: AuthorizationType.NONE,
    methodResponses: [
      {
        statusCode: String(STANDARD_PROBLEMS.methodNotAllowed.status),
        responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [`method.response.header.${name}`, true])),
      },
    ],
  });
};
