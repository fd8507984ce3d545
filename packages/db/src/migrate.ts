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

/**
 * Applies every pending migration of each set, in order, each set in one transaction.
 *
 * Each set runs inside a transaction of ours that first takes node-pg-migrate's lock id as a
 * transaction-level advisory lock (pg_advisory_xact_lock): a second process migrating at the same
 * moment (replicas, services, parallel tests) waits instead of failing on node-pg-migrate's own
 * try-lock, and nothing depends on the session, so even a pooler in transaction mode keeps the
 * lock, the history reads and the migrations on one server connection. node-pg-migrate's own
 * BEGIN inside ours is a no-op (Postgres warns), and its COMMIT (or ROLLBACK) ends ours, lock
 * included; our COMMIT after it is then a no-op as well. Services still migrate through
 * DATABASE_DIRECT_URL (CONTRACT §1).
 */
export async function migrate(pool: pg.Pool, sets: MigrationSet[], logger: Logger): Promise<void> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error): void => {
    lost = error;
  };
  client.on('error', onError);
  try {
    for (const set of sets) await migrateSet(client, set, logger);
  } finally {
    client.off('error', onError);
    client.release(lost);
  }
}

async function migrateSet(client: pg.PoolClient, set: MigrationSet, logger: Logger): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_ID]);
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
    await client.query('COMMIT');
    if (applied.length > 0) logger.info('migrations applied', { table: set.table, migrations: applied.map((m) => m.name) });
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
