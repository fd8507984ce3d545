/** One jest run over every package and service: unit tests beside the code, integration tests in test/. */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  testMatch: [
    '<rootDir>/packages/*/src/**/*.test.ts',
    '<rootDir>/packages/*/test/**/*.test.ts',
    '<rootDir>/services/*/src/**/*.test.ts',
    '<rootDir>/services/*/test/**/*.test.ts',
    '<rootDir>/scripts/**/*.test.ts',
    '<rootDir>/tests/**/*.test.ts',
    '<rootDir>/bench/**/*.test.ts',
  ],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  testTimeout: 30000,
  maxWorkers: 2,
};
