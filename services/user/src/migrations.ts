import path from 'node:path';
import type { MigrationSet } from '@platform/db';

/**
 * The user service's tables: its migration folder (shipped beside `src/` and `dist/`) and its
 * own history table, so that every service migrates and deploys on its own.
 */
export const userMigrations: MigrationSet = { dir: path.resolve(__dirname, '../migrations'), table: 'pgmigrations_user' };
