/** `pnpm migrate`: applies every service's pending migrations to DATABASE_DIRECT_URL (else DATABASE_URL). */
import { runMain } from '@platform/runtime';
import { migrateFromEnvironment } from '@platform/db';
import { categorizationMigrations } from '@platform/categorization/migrations';
import { notifierMigrations } from '@platform/notifier/migrations';
import { userMigrations } from '@platform/user/migrations';

runMain(() => migrateFromEnvironment(process.env, [userMigrations, categorizationMigrations, notifierMigrations]));
