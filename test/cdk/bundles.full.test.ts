import { AUTHORIZER, ROUTES } from '../../lambdas/config/routes.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOCS_PAGE_FILES } from '../../lib/constructs/docs-page.js';
import { bundledCode, bundledCodePath, functionNamed, resourceId, resourcesOfType, synthStack, type SynthesizedStack } from './stack-fixture.js';

/**
 * What `cdk synth` makes of each function, read from the staged assets: the stack synthesized
 * with every function bundled. Bundling takes most of a synth's time (over a minute of a 2-core
 * machine's), so this file runs under `npm run test:full` only (`*.full.test.ts`, jest.config.js);
 * `npm test` checks the same esbuild settings on two functions' entries without the stack
 * (test/cdk/bundling.test.ts).
 */

/** Names in the bundle's `export{a as b, c}` clauses (esbuild's ESM output). */
const exportedNames = (code: string): string[] =>
  [...code.matchAll(/export\s*\{([^}]*)\}/g)].flatMap((match) =>
    (match[1] ?? '').split(',').map(
      (binding) =>
        binding
          .trim()
          .split(/\s+as\s+/)
          .at(-1) ?? '',
    ),
  );

const FUNCTIONS = [...ROUTES.map((route) => ({ name: route.name, entry: route.entry })), { name: 'Authorizer', entry: AUTHORIZER.entry }];

describe('bundled function code', () => {
  let dev: SynthesizedStack;

  beforeAll(() => {
    dev = synthStack({ stage: 'dev', bundle: true });
  });

  it.each(FUNCTIONS)('$name is bundled from $entry as ESM that exports `handler`', ({ name }) => {
    // Prepare
    const [logicalId] = functionNamed(dev.template, name);

    // Act
    const code = bundledCode(dev, logicalId);

    // Assess: the runtime loads index.mjs and calls its `handler` export
    expect(exportedNames(code)).toContain('handler');
    expect(code.includes('createRequire')).toBe(true);
    // the SDK is bundled, not taken from the runtime
    expect(/from\s*["']@aws-sdk\//.test(code)).toBe(false);
  });

  it.each([...FUNCTIONS.map(({ name }) => name), 'Forwarder', 'Maintainer', 'Evaluator', 'ImportWorker', 'WebhooksWorker'])(
    '%s is traced: its invocation, and every SDK client it uses, so X-Ray shows each DynamoDB or SQS call',
    (name) => {
      // Prepare: a route's function by its name, a change handler by its construct id
      const changeHandler = Object.entries(resourcesOfType(dev.template, 'AWS::Lambda::Function')).find(([id]) => id.startsWith(`Changes${name}Handler`));
      const [logicalId, fn] = changeHandler ?? functionNamed(dev.template, name);

      // Act
      const code = bundledCode(dev, logicalId);

      // Assess: active tracing, the Powertools tracer's handler segment and SDK client capture in the bundle
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(code).toContain('captureAWSv3Client');
      expect(code).toContain('## ');
      expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACER_CAPTURE_RESPONSE).toBe('false');
    },
  );

  it('bundles the change-stream forwarder from its entry as ESM that exports `handler`', () => {
    const code = bundledCode(dev, resourceId(dev.template, 'AWS::Lambda::Function', 'ChangesForwarder'));
    expect(code).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
    expect(code).toContain('LIST_QUEUE_URL');
    expect(code).toContain('REPRICING_QUEUE_URL');
  });

  it('bundles the generated OpenAPI document into GetOpenApi, not zod or the generator', () => {
    // Act
    const [logicalId] = functionNamed(dev.template, 'GetOpenApi');
    const code = bundledCode(dev, logicalId);

    // Assess
    expect(code).toContain('"3.1.0"');
    expect(code).toContain('listOffers');
    expect(code).not.toContain('toJSONSchema');
    expect(code).not.toContain('buildOpenApiDocument');
  });

  it("copies the API reference page's renderer files next to GetOpenApi's bundle, as they are in node_modules", () => {
    // Act
    const [logicalId] = functionNamed(dev.template, 'GetOpenApi');
    const assetDir = path.dirname(bundledCodePath(dev, logicalId));

    // Assess
    for (const name of DOCS_PAGE_FILES) {
      expect(readFileSync(path.join(assetDir, name))).toEqual(
        readFileSync(fileURLToPath(new URL(`../../node_modules/swagger-ui-dist/${name}`, import.meta.url))),
      );
    }
  });
});
