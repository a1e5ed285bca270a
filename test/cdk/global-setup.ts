import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Where the run's templates are, for stack-fixture.ts. */
export const CDK_TEMPLATES_ENV = 'TEST_CDK_TEMPLATES';

/** Kept on globalThis: global-teardown runs in this same process and removes the directory. */
export interface CdkTemplatesHolder {
  __cdkTemplates?: string;
}

/** The stages whose unbundled stack most CDK test files read. */
const SHARED_STAGES = ['dev', 'prod'] as const;

/**
 * Synthesizes the dev and prod stacks once for the run, before any CDK file starts, and leaves
 * their templates in a fresh directory: each file then reads them rather than synthesizing again
 * (about 8 s a file, most of it loading aws-cdk-lib's constructs into the file's own module
 * registry). Files that need the construct tree, another stage, other routes or bundles still
 * synthesize their own (`synthStack` in stack-fixture.ts). Nothing is kept between runs.
 *
 * Jest loads this file with Node's own TypeScript support; tsx loads the stack, whose imports
 * name `.js` files that are `.ts` on disk.
 */
export default async function globalSetup(): Promise<void> {
  const { tsImport } = await import('tsx/esm/api');
  const fixture = (await tsImport('./stack-fixture.ts', import.meta.url)) as typeof import('./stack-fixture.js');
  const directory = mkdtempSync(path.join(tmpdir(), 'repricer-cdk-'));
  for (const stage of SHARED_STAGES) {
    writeFileSync(path.join(directory, `${stage}.json`), JSON.stringify(fixture.synthesizeTemplate(stage)));
  }
  (globalThis as CdkTemplatesHolder).__cdkTemplates = directory;
  process.env[CDK_TEMPLATES_ENV] = directory;
}
