import { AUTHORIZER, ROUTES } from '../../lambdas/config/routes.js';
import { FUNCTION_MEMORY_MB, FUNCTION_TIMEOUT_SECONDS } from '../../lib/repricer-stack.js';
import { functionNamed, resourcesOfType, synthStack, type SynthesizedStack } from './stack-fixture.js';

const FUNCTIONS = [
  ...ROUTES.map((route) => ({ name: route.name, entry: route.entry, usesTable: route.tableAccess !== 'none' })),
  { name: 'Authorizer', entry: AUTHORIZER.entry, usesTable: true },
];

describe('Lambda functions', () => {
  let dev: SynthesizedStack;
  let prod: SynthesizedStack;

  beforeAll(() => {
    dev = synthStack({ stage: 'dev' });
    prod = synthStack({ stage: 'prod' });
  });

  it('has one function per route, the authorizer, the three change handlers (forwarder, list maintainer, repricing evaluator), the import worker, the webhook worker and the market loop (schedule, sync worker, storefront reader, price sender)', () => {
    dev.template.resourceCountIs('AWS::Lambda::Function', ROUTES.length + 1 + 3 + 2 + 4);
  });

  it.each(FUNCTIONS)('$name runs on Node.js 24 / arm64 with the shared settings', ({ name, usesTable }) => {
    // Act
    const [, fn] = functionNamed(dev.template, name);

    // Assess
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: 10,
      TracingConfig: { Mode: 'Active' },
      Environment: {
        Variables: {
          ...(usesTable ? { TABLE_NAME: { Ref: expect.stringMatching(/^DataTable/) } } : {}),
          POWERTOOLS_SERVICE_NAME: 'repricer-api',
          POWERTOOLS_LOG_LEVEL: 'DEBUG',
          POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
          NODE_OPTIONS: '--enable-source-maps',
        },
      },
    });
    expect(FUNCTION_MEMORY_MB).toBe(512);
    expect(FUNCTION_TIMEOUT_SECONDS).toBeLessThan(29);
    // The SDK's deployed timeouts and endpoint: the local-only overrides are never set.
    expect(Object.keys(fn.Properties.Environment.Variables)).not.toEqual(expect.arrayContaining(['DYNAMODB_REQUEST_TIMEOUT_MS']));
    expect(Object.keys(fn.Properties.Environment.Variables)).not.toEqual(expect.arrayContaining(['DYNAMODB_ENDPOINT']));
  });

  it.each(FUNCTIONS)('$name writes to its own log group, kept a week in dev and three months elsewhere', ({ name }) => {
    for (const [synthesized, days] of [
      [dev, 7],
      [prod, 90],
    ] as const) {
      const [, fn] = functionNamed(synthesized.template, name);
      const logGroupId = fn.Properties.LoggingConfig?.LogGroup?.Ref as string;
      const logGroup = resourcesOfType(synthesized.template, 'AWS::Logs::LogGroup')[logGroupId];
      expect(logGroup?.Properties.RetentionInDays).toBe(days);
    }
  });

  it('logs at INFO outside dev', () => {
    const [, fn] = functionNamed(prod.template, 'ListOffers');
    expect(fn.Properties.Environment.Variables.POWERTOOLS_LOG_LEVEL).toBe('INFO');
  });

  it('gives every function a role of its own, without managed policies', () => {
    const roleIds = Object.values(resourcesOfType(dev.template, 'AWS::Lambda::Function')).map((fn) => fn.Properties.Role['Fn::GetAtt'][0] as string);
    expect(new Set(roleIds).size).toBe(roleIds.length);
    // The change handlers (3), the import and webhook workers (2) and the market loop (4).
    expect(roleIds).toHaveLength(FUNCTIONS.length + 9);
    for (const role of Object.values(resourcesOfType(dev.template, 'AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});
