/** `node dist/migrate.js`: applies the user service's pending migrations to DATABASE_DIRECT_URL (else DATABASE_URL), then exits. */
import { runMain } from '@platform/runtime';
import { migrateFromEnvironment } from '@platform/db';
import { userMigrations } from './migrations';

runMain(() => migrateFromEnvironment(process.env, [userMigrations]));
