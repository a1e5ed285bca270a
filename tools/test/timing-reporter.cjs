/**
 * Writes how long each test file took (seconds, by path from the project root) to
 * `tools/test/file-seconds.json`, merged with what it held, for the sequencer's order and
 * docs/testing.md's table:
 *   npm test -- --reporters default --reporters ./tools/test/timing-reporter.cjs
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const FILE = join(__dirname, 'file-seconds.json');

class TimingReporter {
  constructor() {
    this.seconds = {};
  }

  onTestFileResult(test, result) {
    this.seconds[relative(ROOT, test.path)] = Math.round((result.perfStats.end - result.perfStats.start) / 100) / 10;
  }

  onRunComplete() {
    const merged = { ...JSON.parse(readFileSync(FILE, 'utf8')), ...this.seconds };
    const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : 1)));
    writeFileSync(FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}

module.exports = TimingReporter;
