import { GATEWAY_RESPONSES, GENERIC_CLIENT_ERROR, staticHeaderValue, staticTemplate } from '../../lib/gateway-responses.js';
import { PROBLEM_CONTENT_TYPE, STANDARD_PROBLEMS, WWW_AUTHENTICATE } from '../../lambdas/http/problem.js';
import { SECURITY_HEADERS } from '../../lambdas/http/responses.js';
import { RETRY_AFTER_SECONDS } from '../../lambdas/http/unavailable.js';
import { resourcesOfType, synthStack, type SynthesizedStack } from './stack-fixture.js';

describe('gateway responses', () => {
  let synthesized: SynthesizedStack;
  const byType = (type: string) =>
    Object.values(resourcesOfType(synthesized.template, 'AWS::ApiGateway::GatewayResponse')).find((response) => response.Properties.ResponseType === type)
      ?.Properties;

  beforeAll(() => {
    synthesized = synthStack();
  });

  it.each([
    ['UNAUTHORIZED', 401, STANDARD_PROBLEMS.unauthorized],
    ['ACCESS_DENIED', 403, STANDARD_PROBLEMS.forbidden],
    ['MISSING_AUTHENTICATION_TOKEN', 404, STANDARD_PROBLEMS.notFound],
    ['REQUEST_TOO_LARGE', 413, STANDARD_PROBLEMS.tooLarge],
    ['UNSUPPORTED_MEDIA_TYPE', 415, STANDARD_PROBLEMS.unsupportedMediaType],
    ['THROTTLED', 429, STANDARD_PROBLEMS.throttled],
    ['QUOTA_EXCEEDED', 429, STANDARD_PROBLEMS.quotaExceeded],
    ['INTEGRATION_TIMEOUT', 504, STANDARD_PROBLEMS.timeout],
    ['AUTHORIZER_CONFIGURATION_ERROR', 503, STANDARD_PROBLEMS.unavailable],
    ['AUTHORIZER_FAILURE', 503, STANDARD_PROBLEMS.unavailable],
    ['DEFAULT_4XX', 400, GENERIC_CLIENT_ERROR],
    ['DEFAULT_5XX', 500, STANDARD_PROBLEMS.internal],
  ])('%s answers %i with the problem body the Lambdas use', (type, status, problem) => {
    // Act
    const response = byType(type);

    // Assess
    expect(response).toMatchObject({
      StatusCode: String(status),
      ResponseTemplates: { 'application/json': JSON.stringify(problem) },
      ResponseParameters: {
        'gatewayresponse.header.Content-Type': `'${PROBLEM_CONTENT_TYPE}'`,
        'gatewayresponse.header.Cache-Control': `'${SECURITY_HEADERS['Cache-Control']}'`,
      },
    });
    expect(JSON.parse(response?.ResponseTemplates['application/json'] as string)).toMatchObject({ status });
  });

  it('challenges with WWW-Authenticate on 401, in single quotes', () => {
    expect(byType('UNAUTHORIZED')?.ResponseParameters['gatewayresponse.header.WWW-Authenticate']).toBe(`'Basic realm="repricer", charset="UTF-8"'`);
    expect(WWW_AUTHENTICATE).toBe('Basic realm="repricer", charset="UTF-8"');
  });

  it('tells throttled clients when to retry', () => {
    expect(byType('THROTTLED')?.ResponseParameters['gatewayresponse.header.Retry-After']).toBe(`'1'`);
  });

  it('answers an authorizer that could not decide (DynamoDB down) as a route does: 503 with Retry-After, not 500', () => {
    for (const type of ['AUTHORIZER_CONFIGURATION_ERROR', 'AUTHORIZER_FAILURE']) {
      expect(byType(type)?.ResponseParameters['gatewayresponse.header.Retry-After']).toBe(`'${RETRY_AFTER_SECONDS}'`);
    }
  });

  it('tells a client whose daily quota is used up to come back in an hour, not in a second', () => {
    expect(byType('QUOTA_EXCEEDED')?.ResponseParameters['gatewayresponse.header.Retry-After']).toBe(`'3600'`);
    expect(STANDARD_PROBLEMS.quotaExceeded.detail).toMatch(/00:00 UTC/);
  });

  it('defines one response per listed type and each body status matches its HTTP status', () => {
    // Act
    const responses = Object.values(resourcesOfType(synthesized.template, 'AWS::ApiGateway::GatewayResponse'));

    // Assess
    expect(responses).toHaveLength(GATEWAY_RESPONSES.length);
    expect(new Set(responses.map((r) => r.Properties.ResponseType)).size).toBe(GATEWAY_RESPONSES.length);
    for (const response of responses) {
      const body = JSON.parse(response.Properties.ResponseTemplates['application/json'] as string) as { status: number };
      expect(String(body.status)).toBe(response.Properties.StatusCode);
    }
  });

  it('refuses header values and bodies a mapping template would misread', () => {
    expect(() => staticHeaderValue("it's")).toThrow(/single quote/);
    expect(staticHeaderValue('a "b"')).toBe(`'a "b"'`);
    expect(() => staticTemplate({ type: 'about:blank', title: 'x', status: 400, detail: 'costs $5' })).toThrow(/\$/);
    expect(() => staticTemplate({ type: 'about:blank', title: 'x', status: 400, detail: '#set' })).toThrow(/#/);
  });
});
