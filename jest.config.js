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
};

export default {
  // Two workers on two cores: integration files spend most of their time waiting on DynamoDB
  // Local and the stream, so a second worker fills that time (JEST_WORKERS overrides it).
  maxWorkers: Number(process.env.JEST_WORKERS ?? 2),
  // A worker is replaced after a file that left it holding more than this (a CDK synth, a large
  // import): files share workers, and memory held by one never slows the files after it.
  workerIdleMemoryLimit: '700MB',
  projects: [
    { ...esm, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'], setupFiles: ['<rootDir>/test/support/quiet-powertools.ts'] },
    { ...esm, displayName: 'cdk', testMatch: ['<rootDir>/test/cdk/**/*.test.ts'] },
    {
      ...esm,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/property/**/*.test.ts'],
      setupFiles: ['<rootDir>/test/support/quiet-metrics.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/integration-timeout.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
