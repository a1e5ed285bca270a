/**
 * Four kinds of tests, one command: `npm test` runs them all; `npm run test:quick` runs the
 * unit and CDK projects only. The property tests share the integration project, whose global
 * setup starts the DynamoDB Local they run against.
 */
const esm = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // esbuild strips the types (test/support/esbuild-transformer.cjs); `npm run typecheck` checks them.
  transform: { '^.+\\.ts$': '<rootDir>/test/support/esbuild-transformer.cjs' },
  testEnvironment: 'node',
  // Jest's runtime, keeping V8's code cache and the sources read from one test file for the next.
  runtime: '<rootDir>/tools/test/code-cache-runtime.cjs',
};

export default {
  // Two workers on two cores: the integration files keep both busy (each worker's node process
  // and its DynamoDB Local, test/support/dynamodb-environment.cjs), and a third made the run
  // slower (JEST_WORKERS overrides it).
  // A worker serves file after file, replaced only once it holds more than 700 MB after one; an
  // integration file that leaves a server or child process running fails
  // (test/support/dynamodb-environment.cjs).
  maxWorkers: Number(process.env.JEST_WORKERS ?? 2),
  // The same order on every machine and run, slowest first by committed timings, not by what
  // jest's cache remembers of earlier runs (tools/test/sequencer.cjs).
  testSequencer: '<rootDir>/tools/test/sequencer.cjs',
  workerIdleMemoryLimit: '700MB',
  projects: [
    {
      ...esm,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      setupFiles: ['<rootDir>/test/support/xray-manual-mode.ts', '<rootDir>/test/support/quiet-powertools.ts'],
    },
    {
      ...esm,
      displayName: 'cdk',
      testMatch: ['<rootDir>/test/cdk/**/*.test.ts'],
      // `npm run test:quick` leaves out the whole-stack checks (`*.stack.test.ts`: cdk-nag, other
      // stages and context values); `npm test` runs them. Only `npm run test:full` runs
      // `*.full.test.ts`: the stack synthesized with every function bundled.
      testPathIgnorePatterns: [
        ...(process.env.TEST_SCOPE === 'quick' ? ['\\.stack\\.test\\.ts$'] : []),
        ...(process.env.TEST_PROFILE === 'full' ? [] : ['\\.full\\.test\\.ts$']),
      ],
      // The shared stacks' templates, synthesized once for the run (test/cdk/global-setup.ts).
      globalSetup: '<rootDir>/test/cdk/global-setup.ts',
      globalTeardown: '<rootDir>/test/cdk/global-teardown.ts',
    },
    {
      ...esm,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/property/**/*.test.ts'],
      testEnvironment: '<rootDir>/test/support/dynamodb-environment.cjs',
      setupFiles: ['<rootDir>/test/support/xray-manual-mode.ts', '<rootDir>/test/support/quiet-metrics.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/integration-timeout.ts'],
      // The run's DynamoDB Locals: one per worker, kept across its files; all stopped at the end.
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
