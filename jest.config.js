/**
 * Four kinds of tests, one command: `npm test` runs them all. The property tests share the
 * integration project, whose global setup starts the DynamoDB Local they run against.
 */
const tsJest = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  testEnvironment: 'node',
};

export default {
  // A fresh worker process for every test file (a worker is replaced once it holds more than
  // this after a file): what one integration file leaves running (timers, sockets, pollers)
  // cannot slow down the files after it, and jest never runs them all in its own process.
  workerIdleMemoryLimit: '1MB',
  projects: [
    { ...tsJest, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'], setupFiles: ['<rootDir>/test/support/quiet-powertools.ts'] },
    { ...tsJest, displayName: 'cdk', testMatch: ['<rootDir>/test/cdk/**/*.test.ts'] },
    {
      ...tsJest,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/property/**/*.test.ts'],
      setupFiles: ['<rootDir>/test/support/quiet-metrics.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/integration-timeout.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
