import type { Pool } from 'pg';
import { createPool, migrate } from '@platform/db';
import { userMigrations } from '@platform/user/migrations';
import { silentLogger } from './logs';
import { testServers } from './servers';

/** A pool on `databaseUrl` (default: the shared test database) with the user service's tables migrated; end it after use. */
export async function userTablesPool(databaseUrl = testServers.databaseUrl, max = 2): Promise<Pool> {
  const pool = createPool({ connectionString: databaseUrl, logger: silentLogger(), max });
  try {
    await migrate(pool, [userMigrations], silentLogger());
  } catch (error) {
    await pool.end();
    throw error;
  }
  return pool;
}
