import { Match } from 'aws-cdk-lib/assertions';
import { API_THROTTLE } from '../../lib/repricer-stack.js';
import { AUTHORIZER } from '../../lambdas/config/routes.js';
import { PROBLEM_CONTENT_TYPE, STANDARD_PROBLEMS } from '../../lambdas/http/problem.js';
import { ROUTES_WITH_EXTRAS } from './shared-stacks.js';
import { methodsByRoute, resourcePaths, resourcesOfType, synthStack, type SynthesizedStack } from './stack-fixture.js';

const ALL_ROUTES = ROUTES_WITH_EXTRAS;
/** The API reference page's methods, beside the routes: answered by GetOpenApi's function (lib/constructs/docs-page.ts). */
const DOCS_PAGE_METHODS = [
  { method: 'GET', path: '/docs' },
  { method: 'GET', path: '/docs/{asset}' },
] as const;

describe('REST API', () => {
  let synthesized: SynthesizedStack;

  beforeAll(() => {
    synthesized = synthStack({ stage: 'prod', routes: ALL_ROUTES });
  });

  it('has one resource per path segment, and no other', () => {
    // Prepare
    const expected = new Set(
      [...ALL_ROUTES, ...DOCS_PAGE_METHODS].flatMap((route) => {
        const parts = route.path.split('/').filter(Boolean);
        return parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`);
      }),
    );

    // Act
    const paths = [...resourcePaths(synthesized.template).values()];

    // Assess
    expect(paths.sort()).toEqual([...expected].sort());
    expect(paths).toContain('/v1/test-items/{itemId}');
  });

  it.each(ALL_ROUTES)('$method $path invokes the $name function through a Lambda proxy integration', (route) => {
    // Act
    const method = methodsByRoute(synthesized.template).get(`${route.method} ${route.path}`);

    // Assess
    expect(method?.Properties.Integration).toMatchObject({
      Type: 'AWS_PROXY',
      IntegrationHttpMethod: 'POST',
      Uri: { 'Fn::Join': ['', expect.arrayContaining([{ 'Fn::GetAtt': [expect.stringMatching(new RegExp(`^Api${route.name}Handler`)), 'Arn'] }])] },
    });
  });

  it.each(ALL_ROUTES)('$method $path is guarded by the authorizer exactly when authorized is $authorized', (route) => {
    // Prepare
    const authorizerId = Object.keys(resourcesOfType(synthesized.template, 'AWS::ApiGateway::Authorizer'))[0];

    // Act
    const method = methodsByRoute(synthesized.template).get(`${route.method} ${route.path}`);

    // Assess
    expect(method?.Properties).toMatchObject(
      route.authorized ? { AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId } } : { AuthorizationType: 'NONE' },
    );
    if (!route.authorized) expect(method?.Properties.AuthorizerId).toBeUndefined();
  });

  it('has no method besides the routes and one ANY per routed resource', () => {
    const routedPaths = new Set(ALL_ROUTES.map((route) => route.path));
    const expected = [
      ...[...ALL_ROUTES, ...DOCS_PAGE_METHODS].map((route) => `${route.method} ${route.path}`),
      ...[...routedPaths].map((path) => `ANY ${path}`),
    ];
    expect([...methodsByRoute(synthesized.template).keys()].sort()).toEqual(expected.sort());
  });

  it.each([
    ['/v1/repricers', 'GET, POST'],
    ['/v1/repricers/{id}', 'DELETE, GET, PATCH'],
    ['/v1/offers', 'GET'],
    ['/v1/test-items/{itemId}', 'DELETE, GET'],
    ['/v1/test-public.json', 'GET'],
  ])('ANY %s answers 405 with Allow: %s and the problem body', (path, allow) => {
    // Act
    const method = methodsByRoute(synthesized.template).get(`ANY ${path}`);

    // Assess
    expect(method?.Properties).toMatchObject({
      AuthorizationType: 'NONE',
      Integration: {
        Type: 'MOCK',
        PassthroughBehavior: 'NEVER',
        RequestTemplates: { 'application/json': '{"statusCode":405}' },
        IntegrationResponses: [
          {
            StatusCode: '405',
            ResponseParameters: {
              'method.response.header.Allow': `'${allow}'`,
              'method.response.header.Content-Type': `'${PROBLEM_CONTENT_TYPE}'`,
            },
            ResponseTemplates: { 'application/json': JSON.stringify(STANDARD_PROBLEMS.methodNotAllowed) },
          },
        ],
      },
      MethodResponses: [
        {
          StatusCode: '405',
          ResponseParameters: { 'method.response.header.Allow': true, 'method.response.header.Content-Type': true },
        },
      ],
    });
    expect(method?.Properties.Integration.IntegrationResponses[0].SelectionPattern).toBeUndefined();
  });

  it('has a REQUEST authorizer on the Authorization header with the configured cache TTL', () => {
    synthesized.template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    synthesized.template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 60,
      AuthorizerUri: Match.objectLike({
        'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiAuthorizerHandler'), 'Arn'] }])],
      }),
    });
    expect(AUTHORIZER.resultsCacheTtlSeconds).toBe(60);
  });

  it('lets API Gateway invoke each function only from its own method', () => {
    // The market schedule's permission is EventBridge's (test/cdk/market-loop.test.ts).
    const permissions = Object.values(resourcesOfType(synthesized.template, 'AWS::Lambda::Permission')).filter(
      (permission) => permission.Properties.Principal !== 'events.amazonaws.com',
    );
    expect(permissions).toHaveLength(ALL_ROUTES.length + DOCS_PAGE_METHODS.length + 1);
    const sourceArns = permissions.map((permission) => {
      expect(permission.Properties).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
      return permission.Properties.SourceArn['Fn::Join'][1] as unknown[];
    });
    const methodTails = sourceArns.map((parts) => parts.at(-1)).filter((tail) => typeof tail === 'string');
    // Path parameters appear as `*` in execute-api ARNs.
    const expected = [...ALL_ROUTES, ...DOCS_PAGE_METHODS].map((route) => `/${route.method}${route.path.replace(/\{[^}]+\}/g, '*')}`);
    expect(methodTails.sort()).toEqual(expected.sort());
    expect(sourceArns.filter((parts) => parts.includes('/authorizers/'))).toHaveLength(1);
  });

  it('is a regional API named after the stage, without an account-wide CloudWatch role', () => {
    synthesized.template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: 'repricer-api-prod',
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    synthesized.template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });

  it('outputs the stage URL', () => {
    synthesized.template.hasOutput('ApiUrl', {
      Value: { 'Fn::Join': ['', Match.arrayWith(['https://', { Ref: Match.stringLikeRegexp('^ApiRestApi') }])] },
    });
  });
});

describe('API stage', () => {
  let synthesized: SynthesizedStack;

  beforeAll(() => {
    synthesized = synthStack({ stage: 'prod' });
  });

  it('throttles at 50 requests per second with a burst of 100', () => {
    expect(API_THROTTLE).toEqual({ rateLimit: 50, burstLimit: 100 });
    synthesized.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      MethodSettings: [Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100, MetricsEnabled: true })],
    });
  });

  it('traces with X-Ray and writes JSON access logs to its own log group', () => {
    // Prepare
    const stage = Object.values(resourcesOfType(synthesized.template, 'AWS::ApiGateway::Stage'))[0];

    // Act
    const format = JSON.parse(stage?.Properties.AccessLogSetting.Format as string) as Record<string, string>;

    // Assess
    expect(stage?.Properties.TracingEnabled).toBe(true);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      errorResponseType: '$context.error.responseType',
      authorizerError: '$context.authorizer.error',
      integrationError: '$context.integration.error',
    });
    expect(JSON.stringify(stage?.Properties.AccessLogSetting.DestinationArn)).toMatch(/"Ref":"ApiAccessLogs/);
    synthesized.template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
  });

  it("has a usage plan on this stage, with a per-client throttle below the stage's and a daily quota", () => {
    // Prepare
    const stageId = Object.keys(resourcesOfType(synthesized.template, 'AWS::ApiGateway::Stage'))[0];

    // Assess
    synthesized.template.resourceCountIs('AWS::ApiGateway::UsagePlan', 1);
    synthesized.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 10, BurstLimit: 20 },
      Quota: { Limit: 200_000, Period: 'DAY' },
      ApiStages: [{ ApiId: { Ref: Match.stringLikeRegexp('^ApiRestApi') }, Stage: { Ref: stageId } }],
    });
    expect(synthesized.stack.api.usagePlan).toBeDefined();
  });
});
