/** `node dist/migrate.js`: applies the notifier service's pending migrations to DATABASE_DIRECT_URL (else DATABASE_URL), then exits. */
import { runMain } from '@platform/runtime';
import { migrateFromEnvironment } from '@platform/db';
import { notifierMigrations } from './migrations';

runMain(() => migrateFromEnvironment(process.env, [notifierMigrations]));
