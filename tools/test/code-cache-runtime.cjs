/**
 * Jest's module runtime, with what a worker learns from one test file kept for the next.
 *
 * - V8's code cache for CommonJS modules. Jest gives every test file a registry of its own, so a
 *   worker compiles the same modules (the AWS SDK, sinon, ajv, ...) once per file, and it sets a
 *   dynamic-import hook on each script, which keeps V8 from reusing its own compilations:
 *   compiling took a quarter of the unit project's CPU. A module's first script, once it has
 *   run, gives its code cache (lazily compiled functions included) to every later compilation of
 *   the same source in the worker, which V8 then reads instead of parsing; a cache V8 rejects
 *   (another source, another V8) is replaced.
 * - The sources jest reads, module by module, for every test file: kept with the size and time
 *   of change they were read at, so a file changed between two runs of a watching jest is read
 *   again.
 *
 * Nothing else changes: the script, its filename, its offsets and its dynamic imports are jest's
 * own (jest-runtime's `createScriptFromCode`), and so are the per-file caches the sources go to.
 * Chosen by `runtime` in jest.config.js; CommonJS, as jest loads it.
 */
const { readFileSync, statSync } = require('node:fs');
const { Script, SyntheticModule } = require('node:vm');
const Runtime = require('jest-runtime').default;

// jest-runtime's own dependencies, whichever copy it was installed with.
const fromRuntime = (name) => require(require.resolve(name, { paths: [require.resolve('jest-runtime')] }));
const { handlePotentialSyntaxError } = fromRuntime('@jest/transform');
const { invariant } = fromRuntime('jest-util');

const vmModulesSupported = typeof SyntheticModule === 'function';

/** Per worker process: a module's wrapped source, and its first script or that script's cache. */
const compiled = new Map();

/**
 * Per worker process: the files the runtime read (every module's source, read anew for each test
 * file by jest), each with the size and time of change it was read at, so a file changed
 * between two runs of a watching jest is read again.
 */
const files = new Map();

const fileNow = (filename) => {
  const { size, mtimeMs } = statSync(filename);
  const known = files.get(filename);
  if (known !== undefined && known.size === size && known.mtimeMs === mtimeMs) return known;
  const read = { size, mtimeMs, buffer: readFileSync(filename), text: undefined };
  files.set(filename, read);
  return read;
};

/** The cache of `entry`'s script, taken once it has run (so its lazy functions are in it). */
const cacheOf = (entry) => {
  if (entry.data === undefined) {
    entry.data = entry.script.createCachedData();
    entry.script = undefined;
  }
  return entry.data;
};

class CodeCacheRuntime extends Runtime {
  readFileBuffer(filename) {
    let buffer = this._cacheFSBuffer.get(filename);
    if (buffer === undefined) {
      buffer = fileNow(filename).buffer;
      this._cacheFSBuffer.set(filename, buffer);
    }
    return buffer;
  }

  readFile(filename) {
    let text = this._cacheFS.get(filename);
    if (text === undefined) {
      const file = fileNow(filename);
      file.text ??= file.buffer.toString('utf8');
      text = file.text;
      this._cacheFS.set(filename, text);
    }
    return text;
  }

  createScriptFromCode(scriptSource, filename) {
    try {
      const scriptFilename = this._resolver.isCoreModule(filename) ? `jest-nodejs-core-${filename}` : filename;
      const source = this.wrapCodeInModuleWrapper(scriptSource);
      const earlier = compiled.get(scriptFilename);
      const cachedData = earlier?.source === source ? cacheOf(earlier) : undefined;
      const script = new Script(source, {
        cachedData,
        columnOffset: this._fileTransforms.get(filename)?.wrapperLength,
        displayErrors: true,
        filename: scriptFilename,
        importModuleDynamically: async (specifier) => {
          invariant(
            vmModulesSupported,
            'You need to run with a version of node that supports ES Modules in the VM API. See https://jestjs.io/docs/ecmascript-modules',
          );
          const context = this._environment.getVmContext?.();
          invariant(context, 'Test environment has been torn down');
          const module = await this.resolveModule(specifier, scriptFilename, context);
          return this.linkAndEvaluateModule(module);
        },
      });
      if (cachedData === undefined || script.cachedDataRejected) compiled.set(scriptFilename, { source, script });
      return script;
    } catch (error) {
      throw handlePotentialSyntaxError(error);
    }
  }
}

module.exports = CodeCacheRuntime;
