import type pg from 'pg';
import type { Logger } from '@platform/common';
import { migrate, serviceMigrations, type MigrationSet } from '@platform/db';

/** The categorization service's tables (`services/categorization/migrations`, history `pgmigrations_categorization`). */
export const categorizationMigrations: MigrationSet = serviceMigrations.categorization;

/** Applies the pending categorization migrations (migrate() waits for a concurrent migrator). */
export function applyMigrations(pool: pg.Pool, logger: Logger): Promise<void> {
  return migrate(pool, [categorizationMigrations], logger);
}
