/**
 * `pnpm test:cluster`: the fault tests on the local cluster (tests/cluster), one
 * file at a time (each starts a whole cluster: Patroni Postgres, RabbitMQ nodes, Redis, HAProxy,
 * 8 service processes). They need the built services (`pnpm build`). `pnpm test` leaves them out.
 */
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  globalSetup: undefined,
  testMatch: ['<rootDir>/tests/cluster/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 120000,
  maxWorkers: 1,
};
