import { ROUTES } from '../../lambdas/config/routes.js';
import { actionsOf, functionNamed, methodsByRoute, roleStatements, synthStack, type SynthesizedStack } from './stack-fixture.js';

/** GetOpenApi serves a file it carries: no table, no credentials, nothing of the generator (its bundle is read in bundling.test.ts and bundles.full.test.ts). */
describe('the GetOpenApi function', () => {
  let synthesized: SynthesizedStack;

  beforeAll(() => {
    synthesized = synthStack();
  });

  it('is the public route with no table access in the route table', () => {
    expect(ROUTES.find((route) => route.name === 'GetOpenApi')).toMatchObject({ path: '/v1/openapi.json', tableAccess: 'none', authorized: false });
  });

  it('may not touch the table and is not told its name', () => {
    // Act
    const [logicalId, fn] = functionNamed(synthesized.template, 'GetOpenApi');
    const actions = roleStatements(synthesized.template, logicalId).flatMap(actionsOf);

    // Assess
    expect(actions.filter((action) => action.startsWith('dynamodb:'))).toEqual([]);
    expect(JSON.stringify(roleStatements(synthesized.template, logicalId))).not.toMatch(/DataTable/);
    expect(fn.Properties.Environment.Variables).not.toHaveProperty('TABLE_NAME');
  });

  it('answers GET /v1/openapi.json without the authorizer', () => {
    const method = methodsByRoute(synthesized.template).get('GET /v1/openapi.json');
    expect(method?.Properties).toMatchObject({ AuthorizationType: 'NONE' });
    expect(method?.Properties.AuthorizerId).toBeUndefined();
  });

  it('serves the API reference page at GET /docs and its files at GET /docs/{asset}, without the authorizer, and names its URL', () => {
    // Act
    const [logicalId] = functionNamed(synthesized.template, 'GetOpenApi');
    const methods = methodsByRoute(synthesized.template);
    const outputs = synthesized.template.toJSON().Outputs as Record<string, { Value: unknown }>;

    // Assess
    for (const route of ['GET /docs', 'GET /docs/{asset}']) {
      const method = methods.get(route)?.Properties;
      expect(method).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'AWS_PROXY' } });
      expect(method?.AuthorizerId).toBeUndefined();
      expect(method?.ApiKeyRequired).not.toBe(true);
      expect(JSON.stringify(method?.Integration.Uri)).toContain(logicalId);
    }
    expect(JSON.stringify(outputs.DocsUrl?.Value)).toContain('docs');
  });
});
