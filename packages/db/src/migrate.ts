import type pg from 'pg';
import { runner } from 'node-pg-migrate';
import type { Logger } from '@platform/runtime';

export interface MigrationSet {
  /** Folder of `<yyyymmddhhmmssSSS>_name.sql` files with `-- Up Migration` / `-- Down Migration` sections. */
  dir: string;
  /** Each service keeps its own history table, so services migrate independently. */
  table: string;
}

/** The advisory lock id node-pg-migrate uses, so that runners of either kind exclude each other. */
const MIGRATION_LOCK_ID = '7241865325823964';

/** Applies every pending migration of each set, in order, each set in one transaction. */
export async function migrate(pool: pg.Pool, sets: MigrationSet[], logger: Logger): Promise<void> {
  const client = await pool.connect();
  // node-pg-migrate's own lock is a try-lock: a second process migrating at the same moment
  // (replicas, services, parallel tests) would fail to start. Wait for node-pg-migrate's lock id instead.
  let locked = false;
  let unlockError: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_ID]);
    locked = true;
    for (const set of sets) {
      const applied = await runner({
        dbClient: client,
        dir: set.dir,
        migrationsTable: set.table,
        direction: 'up',
        count: Infinity,
        singleTransaction: true,
        noLock: true,
        checkOrder: true,
        log: (message: string) => logger.debug(message),
        logger: {
          debug: () => undefined,
          info: () => undefined,
          warn: (m: string) => logger.warn(m),
          error: (m: string) => logger.error(m),
        },
      });
      if (applied.length > 0) logger.info('migrations applied', { table: set.table, migrations: applied.map((m) => m.name) });
    }
  } finally {
    if (locked) {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_ID]).catch((error: Error) => {
        unlockError = error;
      });
    }
    // A session that could not unlock must not go back to the pool holding the lock.
    client.release(unlockError);
  }
}
