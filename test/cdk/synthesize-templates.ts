/**
 * Writes the unbundled templates of test/cdk/shared-stacks.ts into the directory given as the
 * first argument, one `<name>.json` each, and cdk-nag's report of those that ask for it,
 * `<name>.nag.json` (each renamed into place once whole, so a reader never sees half a file), or
 * `error.txt` when a synth fails. Run by test/cdk/global-setup.ts beside the tests; with
 * TEST_SCOPE=quick it leaves out what only the whole-stack files read.
 */
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { SHARED_SYNTH_DONE } from './global-setup.js';
import { nagReport } from './nag-report.js';
import { NAG_REPORT_SUFFIX, SHARED_STACKS } from './shared-stacks.js';
import { buildStack } from './stack-fixture.js';

const directory = process.argv[2];
if (directory === undefined) throw new Error('usage: synthesize-templates.ts <directory>');
const quick = process.env.TEST_SCOPE === 'quick';

const write = (name: string, content: unknown) => {
  const file = path.join(directory, `${name}.json`);
  writeFileSync(`${file}.partial`, JSON.stringify(content));
  renameSync(`${file}.partial`, file);
};

try {
  for (const [name, { stage, context, routes, wholeStackOnly, nag }] of Object.entries(SHARED_STACKS)) {
    if (quick && wholeStackOnly) continue;
    const { stack } = buildStack(stage, routes, false, context);
    write(name, Template.fromStack(stack).toJSON());
    if (nag && !quick) write(`${name}${NAG_REPORT_SUFFIX}`, nagReport(stack));
  }
  writeFileSync(path.join(directory, SHARED_SYNTH_DONE), '');
} catch (error) {
  writeFileSync(path.join(directory, 'error.txt'), error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
}
