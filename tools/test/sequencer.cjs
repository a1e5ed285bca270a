/**
 * The order test files start in, the same on every machine and every run. Jest's own sequencer
 * orders by what its cache recorded of earlier runs (failed first, then slowest), so a fresh
 * clone and a used checkout ran files in different orders and finished at different times.
 * Here: the slowest first by the seconds committed in `file-seconds.json` (so the two workers
 * end together), then the files not listed there, by path. The CDK files read the stacks the
 * run's synth makes beside the first files (test/cdk/global-setup.ts) and wait for them: started
 * first, as their seconds (mostly that wait) would place them, they held both workers idle while
 * one process synthesized. So in a run without integration files (`test:quick`) they come after
 * all the others; in `npm test` the integration files that come before them by their seconds
 * take minutes, long enough for the synth.
 */
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..', '..');
/** Seconds per file (path from the project root), measured by `timing-reporter.cjs`. */
const seconds = JSON.parse(readFileSync(join(__dirname, 'file-seconds.json'), 'utf8'));
const CDK_FILES = 'test/cdk/';
const INTEGRATION_FILES = ['test/integration/', 'test/property/'];

class FixedOrderSequencer {
  sort(tests) {
    const paths = tests.map((test) => relative(ROOT, test.path));
    const withIntegration = paths.some((path) => INTEGRATION_FILES.some((folder) => path.startsWith(folder)));
    const weighed = tests.map((test, i) => {
      const path = paths[i];
      return { test, path, late: path.startsWith(CDK_FILES) && !withIntegration ? 1 : 0, seconds: seconds[path] ?? 0 };
    });
    weighed.sort((a, b) => a.late - b.late || b.seconds - a.seconds || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return weighed.map(({ test }) => test);
  }

  /** Jest hands each run's results to its sequencer to cache; this one keeps nothing. */
  cacheResults() {}

  /** `--shard=i/n`: every n-th file of the fixed order, so the shards share the slow files. */
  shard(tests, { shardIndex, shardCount }) {
    return this.sort(tests).filter((_, i) => i % shardCount === shardIndex - 1);
  }
}

module.exports = FixedOrderSequencer;
