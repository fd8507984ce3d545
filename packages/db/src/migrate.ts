import type pg from 'pg';
import { runner } from 'node-pg-migrate';
import type { Logger } from '@platform/common';

export interface MigrationSet {
  /** Folder of `NNNN_name.sql` files with `-- Up Migration` / `-- Down Migration` sections. */
  dir: string;
  /** Each service keeps its own history table, so services migrate independently. */
  table: string;
}

/** Applies every pending migration of each set, in order, each set in one transaction. */
export async function migrate(pool: pg.Pool, sets: MigrationSet[], logger: Logger): Promise<void> {
  const client = await pool.connect();
  try {
    for (const set of sets) {
      const applied = await runner({
        dbClient: client,
        dir: set.dir,
        migrationsTable: set.table,
        direction: 'up',
        count: Infinity,
        singleTransaction: true,
        checkOrder: true,
        log: (message: string) => logger.debug(message),
        logger: { debug: () => undefined, info: () => undefined, warn: (m: string) => logger.warn(m), error: (m: string) => logger.error(m) },
      });
      if (applied.length > 0) logger.info('migrations applied', { table: set.table, migrations: applied.map((m) => m.name) });
    }
  } finally {
    client.release();
  }
}
