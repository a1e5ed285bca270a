import { API_THROTTLE, CLIENT_QUOTA, CLIENT_THROTTLE } from '../../lib/repricer-stack.js';
import { ROUTES } from '../../lambdas/config/routes.js';
import { methodsByRoute, resourcesOfType, synthStack, type SynthesizedStack } from './stack-fixture.js';

/** Each client is metered by the usage plan through the API key its authorizer result names. */
describe('usage plan per client', () => {
  let synthesized: SynthesizedStack;

  beforeAll(() => {
    synthesized = synthStack({ stage: 'prod' });
  });

  it('takes API keys from the authorizer, not from an x-api-key header', () => {
    // Act
    const apis = Object.values(resourcesOfType(synthesized.template, 'AWS::ApiGateway::RestApi'));

    // Assess
    expect(apis).toHaveLength(1);
    expect(apis[0]?.Properties.ApiKeySourceType).toBe('AUTHORIZER');
  });

  it.each(ROUTES.filter((route) => route.authorized))('$method $path requires an API key', (route) => {
    // Act
    const method = methodsByRoute(synthesized.template).get(`${route.method} ${route.path}`);

    // Assess
    expect(method?.Properties.ApiKeyRequired).toBe(true);
    expect(method?.Properties.AuthorizationType).toBe('CUSTOM');
  });

  it('requires no API key where no authorizer could supply one: public routes and the 405 mocks', () => {
    // Prepare
    const methods = methodsByRoute(synthesized.template);
    const publicRoutes = ROUTES.filter((route) => !route.authorized).map((route) => `${route.method} ${route.path}`);
    const mocks = [...methods.keys()].filter((key) => key.startsWith('ANY '));

    // Assess
    expect(mocks.length).toBeGreaterThan(0);
    for (const key of [...publicRoutes, ...mocks]) expect(methods.get(key)?.Properties.ApiKeyRequired ?? false).toBe(false);
  });

  it('has a usage plan on the stage, which the operator attaches client keys to', () => {
    // Act
    const plans = Object.values(resourcesOfType(synthesized.template, 'AWS::ApiGateway::UsagePlan'));

    // Assess
    expect(plans).toHaveLength(1);
    expect(plans[0]?.Properties.ApiStages).toHaveLength(1);
    expect(Object.keys(resourcesOfType(synthesized.template, 'AWS::ApiGateway::ApiKey'))).toEqual([]);
  });
});

/** One client cannot use up the stage: its own throttle is below the stage's, and it has a daily quota. */
describe('usage plan limits per client', () => {
  let synthesized: SynthesizedStack;

  beforeAll(() => {
    synthesized = synthStack({ stage: 'prod' });
  });

  const plan = () => Object.values(resourcesOfType(synthesized.template, 'AWS::ApiGateway::UsagePlan'))[0]?.Properties;
  const stageThrottle = () => {
    const stages = Object.values(resourcesOfType(synthesized.template, 'AWS::ApiGateway::Stage'));
    const settings = (stages[0]?.Properties.MethodSettings as { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }[])[0];
    return { rateLimit: settings?.ThrottlingRateLimit, burstLimit: settings?.ThrottlingBurstLimit };
  };

  it('throttles each client at 10 requests per second with bursts of 20', () => {
    expect(plan()?.Throttle).toEqual({ RateLimit: 10, BurstLimit: 20 });
    expect(CLIENT_THROTTLE).toEqual({ rateLimit: 10, burstLimit: 20 });
  });

  it("keeps each client's throttle below the stage's, rate and burst", () => {
    const stage = stageThrottle();
    expect(stage).toEqual({ rateLimit: API_THROTTLE.rateLimit, burstLimit: API_THROTTLE.burstLimit });
    expect(plan()?.Throttle.RateLimit).toBeLessThan(stage.rateLimit!);
    expect(plan()?.Throttle.BurstLimit).toBeLessThan(stage.burstLimit!);
  });

  it('gives each client a quota of 200,000 requests per day', () => {
    expect(plan()?.Quota).toEqual({ Limit: 200_000, Period: 'DAY' });
    expect(CLIENT_QUOTA.limit).toBe(200_000);
  });

  it("leaves the quota below what the client's throttle alone would allow in a day", () => {
    expect(plan()?.Quota.Limit).toBeLessThan(plan()?.Throttle.RateLimit * 24 * 60 * 60);
  });
});
