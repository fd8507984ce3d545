/** Real servers the integration tests use; CI and developer machines run them locally. */
export const testServers = {
  databaseUrl: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  /** The server itself when databaseUrl is a pooler (TEST_PGBOUNCER=1 sets both). */
  databaseDirectUrl: process.env.TEST_DATABASE_DIRECT_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  amqpUrl: process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
};

/** A unique suffix so tests that share a server never see each other's data. */
export function uniqueId(prefix = 't'): string {
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Node's arguments for running a TypeScript entry point from source in a child process: the
 * workspace packages resolve to their `src/` through the `development` export condition.
 */
export const sourceNodeArgs = ['--conditions=development', '--import', 'tsx'];

/**
 * The variables an in-process test of the HTTP services sets beside its URLs: the shared
 * RabbitMQ, the test's own secrets, ports the OS picks, and failure limits no test reaches.
 */
export function serviceTestEnv(secrets: { adminToken: string; serviceJwtSecret: string }): Record<string, string> {
  return {
    AMQP_URL: testServers.amqpUrl,
    ADMIN_TOKEN: secrets.adminToken,
    SERVICE_JWT_SECRET: secrets.serviceJwtSecret,
    AUTH_PORT: '0',
    USER_PORT: '0',
    CATEGORIZATION_PORT: '0',
    AUTH_FAILURES_PER_IP: '100000',
  };
}
