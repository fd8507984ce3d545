/** `pnpm migrate`: applies every service's pending migrations to DATABASE_URL. */
import { z } from 'zod';
import { createLogger, env, parseEnv, runMain } from '@platform/common';
import { createPool, migrate, serviceMigrations } from '@platform/db';

runMain(async () => {
  const config = parseEnv(z.object({ DATABASE_URL: env.url(['postgres', 'postgresql']), LOG_LEVEL: env.logLevel() }), process.env);
  const logger = createLogger({ service: 'migrate', level: config.LOG_LEVEL });
  const pool = createPool({ connectionString: config.DATABASE_URL, max: 1, logger });
  try {
    await migrate(pool, Object.values(serviceMigrations), logger);
    logger.info('database is up to date');
  } finally {
    await pool.end();
  }
});
