import { ROUTES } from '../../lib/routes.js';
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
