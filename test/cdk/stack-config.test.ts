import { App, RemovalPolicy } from 'aws-cdk-lib';
import { RepricerStack, stageFromContext, stageSettings } from '../../lib/repricer-stack.js';
import { ROUTES, type RouteDefinition } from '../../lambdas/config/routes.js';

const route = (overrides: Partial<RouteDefinition>): RouteDefinition => ({
  name: 'Extra',
  method: 'GET',
  path: '/v1/extra',
  entry: 'lambdas/functions/list-offers/handler.ts',
  tableAccess: 'read',
  authorized: true,
  ...overrides,
});

describe('stage selection', () => {
  it('defaults to dev', () => {
    expect(stageFromContext(new App())).toBe('dev');
  });

  it('reads the stage from the CDK context', () => {
    expect(stageFromContext(new App({ context: { stage: 'prod' } }))).toBe('prod');
  });

  it.each(['Prod', 'prod_1', '', 'x', 'a-very-long-stage-name-indeed'])('refuses the stage name %j', (stage) => {
    expect(() => stageFromContext(new App({ context: { stage } }))).toThrow(/must match/);
  });

  it('keeps data only outside dev', () => {
    expect(stageSettings('dev')).toMatchObject({ removalPolicy: RemovalPolicy.DESTROY, deletionProtection: false });
    expect(stageSettings('staging')).toMatchObject({ removalPolicy: RemovalPolicy.RETAIN, deletionProtection: true });
  });
});

describe('route table checks', () => {
  it.each([
    ['a duplicate method and path', route({ name: 'Other', method: 'GET', path: '/v1/offers' }), /Duplicate route: GET \/v1\/offers/],
    ['a duplicate name', route({ name: 'ListOffers' }), /Duplicate route: name ListOffers/],
    ['a trailing slash', route({ path: '/v1/extra/' }), /must start with "\/" and not end with one/],
    ['a relative path', route({ path: 'v1/extra' }), /must start with "\/" and not end with one/],
  ])('refuses %s', (_, extra, message) => {
    const app = new App();
    expect(() => new RepricerStack(app, 'Bad', { stage: 'dev', routes: [...ROUTES, extra] })).toThrow(message);
  });
});
