/**
 * Writes the unbundled templates of the shared stages into the directory given as the first
 * argument, one `<stage>.json` each (renamed into place once whole, so a reader never sees half
 * a file), or `error.txt` when a synth fails. Run by test/cdk/global-setup.ts beside the tests.
 */
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SHARED_STAGES } from './global-setup.js';
import { synthesizeTemplate } from './stack-fixture.js';

const directory = process.argv[2];
if (directory === undefined) throw new Error('usage: synthesize-templates.ts <directory>');
try {
  for (const stage of SHARED_STAGES) {
    const file = path.join(directory, `${stage}.json`);
    writeFileSync(`${file}.partial`, JSON.stringify(synthesizeTemplate(stage)));
    renameSync(`${file}.partial`, file);
  }
} catch (error) {
  writeFileSync(path.join(directory, 'error.txt'), error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
}
