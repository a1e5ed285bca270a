import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the run's templates are, for stack-fixture.ts. */
export const CDK_TEMPLATES_ENV = 'TEST_CDK_TEMPLATES';

/** Written beside the templates once the run's synth has written every one it makes. */
export const SHARED_SYNTH_DONE = 'done';

/** Kept on globalThis: global-teardown runs in this same process, stops the synth and removes the directory. */
export interface CdkTemplatesHolder {
  __cdkTemplates?: string;
  __cdkSynth?: ChildProcess;
}

/**
 * Synthesizes the stacks of test/cdk/shared-stacks.ts once for the run and leaves their
 * templates in a fresh directory: each file then reads them rather than synthesizing again
 * (about 8 s a file: a file that only loads the stack's modules takes about 1 s, so most of it
 * is building and synthesizing the tree). Files that need the construct tree, another stack or bundles still synthesize their
 * own (`synthStack` in stack-fixture.ts). Nothing is kept between runs. Under
 * `npm run test:quick` (TEST_SCOPE=quick), which leaves the whole-stack files out, the stacks
 * only they read are not synthesized.
 *
 * The synth runs in a process of its own beside the tests rather than before them: the unit files
 * and the CDK files that synthesize their own stack start at once, and a file that reads a shared
 * template waits for it (stack-fixture.ts).
 */
export default function globalSetup(): void {
  const directory = mkdtempSync(path.join(tmpdir(), 'repricer-cdk-'));
  const script = fileURLToPath(new URL('./synthesize-templates.ts', import.meta.url));
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, directory], { cwd: root, stdio: 'ignore' });
  child.unref();
  const holder = globalThis as CdkTemplatesHolder;
  holder.__cdkTemplates = directory;
  holder.__cdkSynth = child;
  process.env[CDK_TEMPLATES_ENV] = directory;
}
