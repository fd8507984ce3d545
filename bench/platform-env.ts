import path from 'node:path';

/** The admin token of the platform the bench starts (never a real deployment's). */
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/**
 * The environment of the platform `pnpm bench` and `bench/compare.ts` start (scripts/start-all.ts
 * in `root`): BENCH_DATABASE_URL / BENCH_REDIS_URL or the local servers, its own Redis key prefix,
 * ports picked by the system, no issuance rate limit in the way, errors-only logs.
 */
export function benchPlatformEnv(root: string, keyPrefix: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: keyPrefix,
    ADMIN_TOKEN,
    AUTH_PORT: '0',
    USER_PORT: '0',
    CATEGORIZATION_PORT: '0',
    NOTIFIER_PORT: '0',
    TOKEN_RATE_PER_ACCOUNT: '100000000',
    LOG_LEVEL: 'error',
    DATA_DIR: path.join(root, '.data/bench'),
  };
}
