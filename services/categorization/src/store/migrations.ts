import type pg from 'pg';
import type { Logger } from '@platform/runtime';
import { migrate } from '@platform/db';
import { categorizationMigrations } from '../migrations';

/** Applies the pending categorization migrations (migrate() waits for a concurrent migrator). */
export function applyMigrations(pool: pg.Pool, logger: Logger): Promise<void> {
  return migrate(pool, [categorizationMigrations], logger);
}
