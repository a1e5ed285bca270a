/**
 * esbuild settings of every Lambda bundle: used by the stack's functions and by the benchmark,
 * which measures bundles built exactly as deployed.
 */
export const LAMBDA_BUNDLING = {
  target: 'node24',
  mainFields: ['module', 'main'],
  /** The bundle is ESM; some bundled CommonJS dependencies still call `require`. */
  banner: "import { createRequire as topLevelCreateRequire } from 'node:module';" + 'const require = topLevelCreateRequire(import.meta.url);',
  minify: true,
} as const;
