/**
 * The esbuild settings every function is bundled with (lib/constructs/bundling.ts), checked on
 * two functions' entries in a few seconds: GetOffer, which reads the table through the traced
 * SDK, and GetOpenApi, which carries the generated document. `npm run test:full` bundles the
 * whole stack through `cdk synth` and reads every function's staged asset
 * (test/cdk/bundles.full.test.ts); the other CDK files check the unbundled stack.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROUTES } from '../../lambdas/config/routes.js';
import { bundleFunction } from '../../tools/bench/bundles.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The bundle of a route's function, as text. */
const bundled = async (directory: string, routeName: string): Promise<string> => {
  const route = ROUTES.find(({ name }) => name === routeName);
  if (route === undefined) throw new Error(`No route ${routeName}`);
  const outfile = path.join(directory, `${routeName}.mjs`);
  await bundleFunction(ROOT, path.join(ROOT, route.entry), outfile);
  return readFileSync(outfile, 'utf8');
};

describe('the esbuild settings of every function', () => {
  let directory: string;
  let getOffer: string;
  let getOpenApi: string;

  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'repricer-bundling-'));
    [getOffer, getOpenApi] = await Promise.all([bundled(directory, 'GetOffer'), bundled(directory, 'GetOpenApi')]);
  }, 60_000);

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('make an ES module that exports `handler`, with `require` for the CommonJS inside it', () => {
    expect(getOffer).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
    expect(getOffer).toContain('createRequire');
  });

  it('bundle the pinned SDK, traced, rather than import the one of the runtime', () => {
    expect(/from\s*["']@aws-sdk\//.test(getOffer)).toBe(false);
    expect(getOffer).toContain('DynamoDBClient');
    expect(getOffer).toContain('captureAWSv3Client');
  });

  it('carry the generated OpenAPI document in GetOpenApi, not zod or the generator', () => {
    expect(getOpenApi).toContain('"3.1.0"');
    expect(getOpenApi).toContain('listOffers');
    expect(getOpenApi).not.toContain('toJSONSchema');
    expect(getOpenApi).not.toContain('buildOpenApiDocument');
  });
});
