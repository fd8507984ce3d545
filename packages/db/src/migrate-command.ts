import { z } from 'zod';
import { createLogger, env, parseEnv } from '@platform/runtime';
import { migrate, type MigrationSet } from './migrate';
import { createPool } from './pool';

/**
 * The body of a migration command (`pnpm migrate`, a service's `dist/migrate.js`): applies the
 * pending migrations of `sets` to the environment's DATABASE_DIRECT_URL (else DATABASE_URL: the
 * migrations keep no session state, so a pooler works too) and closes its connection.
 */
export async function migrateFromEnvironment(environment: NodeJS.ProcessEnv, sets: MigrationSet[]): Promise<void> {
  const url = env.url(['postgres', 'postgresql']);
  const config = parseEnv(z.object({ DATABASE_URL: url, DATABASE_DIRECT_URL: url.optional(), LOG_LEVEL: env.logLevel() }), environment);
  const logger = createLogger({ service: 'migrate', level: config.LOG_LEVEL });
  const pool = createPool({ connectionString: config.DATABASE_DIRECT_URL ?? config.DATABASE_URL, max: 1, logger });
  try {
    await migrate(pool, sets, logger);
    logger.info('database is up to date', { tables: sets.map((set) => set.table) });
  } finally {
    await pool.end();
  }
}
