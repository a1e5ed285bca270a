/**
 * Jest transformer: TypeScript to JavaScript with esbuild, one file at a time, as ts-jest's
 * isolatedModules mode did but in milliseconds. Types are checked by `npm run typecheck`
 * (tsc), which CI runs before the tests. ES modules stay ES modules (jest runs with
 * --experimental-vm-modules), with inline source maps so stack traces point at the .ts lines.
 */
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { transformSync, version } = require('esbuild');

// Jest loads its global setup and teardown as CommonJS: there `import.meta.url` becomes the
// file's URL, as it is in the ES module the file was written as.
const commonJs = {
  format: 'cjs',
  banner: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;",
  define: { 'import.meta.url': '__importMetaUrl' },
};

const optionsFor = (sourcePath, supportsStaticESM) => ({
  loader: sourcePath.endsWith('.tsx') ? 'tsx' : 'ts',
  target: 'node22',
  sourcemap: 'inline',
  sourcefile: sourcePath,
  // Keep class and function names: tests and logs print them.
  keepNames: true,
  ...(supportsStaticESM ? { format: 'esm' } : commonJs),
});

// A change to this file (its options) must not reuse what it transformed before.
const OWN_SOURCE = readFileSync(__filename, 'utf8');

module.exports = {
  canInstrument: false,
  getCacheKey(sourceText, sourcePath, { supportsStaticESM = false }) {
    return createHash('sha256')
      .update(OWN_SOURCE)
      .update(version)
      .update('\0')
      .update(sourcePath)
      .update('\0')
      .update(String(supportsStaticESM))
      .update('\0')
      .update(sourceText)
      .digest('hex');
  },
  process(sourceText, sourcePath, { supportsStaticESM = false }) {
    const { code } = transformSync(sourceText, optionsFor(sourcePath, supportsStaticESM));
    return { code };
  },
};
