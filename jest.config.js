/** One jest run over every package and service: unit tests beside the code, integration tests in test/. */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // Workspace packages resolve to their TypeScript source (package.json "exports" → development).
  testEnvironmentOptions: { customExportConditions: ['development', 'node', 'node-addons'] },
  globalSetup: '<rootDir>/tests/setup/global-setup.ts',
  testMatch: [
    '<rootDir>/packages/*/src/**/*.test.ts',
    '<rootDir>/packages/*/test/**/*.test.ts',
    '<rootDir>/services/*/src/**/*.test.ts',
    '<rootDir>/services/*/test/**/*.test.ts',
    '<rootDir>/scripts/**/*.test.ts',
    '<rootDir>/tests/**/*.test.ts',
    '<rootDir>/bench/**/*.test.ts',
  ],
  // The local cluster's fault tests run on their own, one file at a time: `pnpm test:cluster`.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/tests/cluster/'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // ESM packages (packages/client) import their own modules as './x.js'; jest resolves the .ts.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 30000,
  maxWorkers: 2,
};
