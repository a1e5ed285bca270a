/**
 * Jest transformer: TypeScript to JavaScript with esbuild, one file at a time, as ts-jest's
 * isolatedModules mode did but in milliseconds. Types are checked by `npm run typecheck`
 * (tsc), which CI runs before the tests. ES modules stay ES modules (jest runs with
 * --experimental-vm-modules), with inline source maps so stack traces point at the .ts lines.
 */
const { createHash } = require('node:crypto');
const { transformSync, version } = require('esbuild');

const optionsFor = (sourcePath, supportsStaticESM) => ({
  loader: sourcePath.endsWith('.tsx') ? 'tsx' : 'ts',
  format: supportsStaticESM ? 'esm' : 'cjs',
  target: 'node22',
  sourcemap: 'inline',
  sourcefile: sourcePath,
  // Keep class and function names: tests and logs print them.
  keepNames: true,
});

module.exports = {
  canInstrument: false,
  getCacheKey(sourceText, sourcePath, { supportsStaticESM = false }) {
    return createHash('sha256').update(version).update('\0').update(sourcePath).update('\0').update(String(supportsStaticESM)).update('\0').update(sourceText).digest('hex');
  },
  process(sourceText, sourcePath, { supportsStaticESM = false }) {
    const { code } = transformSync(sourceText, optionsFor(sourcePath, supportsStaticESM));
    return { code };
  },
};
