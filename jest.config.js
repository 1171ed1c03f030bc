/** Jest runs the TypeScript sources through SWC (decorators + metadata, CommonJS). */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  testTimeout: 30000,
  // Each test file loads the whole service afresh and the module registries of earlier files are
  // not all released (about 25 MB of heap per file): a worker whose heap has passed this after a
  // file is replaced by a fresh one, so memory stays flat over the suite. With a limit set Jest
  // runs the files in a worker process even on one core.
  workerIdleMemoryLimit: '512MB',
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
