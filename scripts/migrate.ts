/** `pnpm migrate`: applies every service's pending migrations to DATABASE_DIRECT_URL (else DATABASE_URL). */
import { runMain } from '@platform/runtime';
import { migrateFromEnvironment } from '@platform/db';
import { categorizationMigrations } from '../services/categorization/src/migrations';
import { notifierMigrations } from '../services/notifier/src/migrations';
import { userMigrations } from '../services/user/src/migrations';

runMain(() => migrateFromEnvironment(process.env, [userMigrations, categorizationMigrations, notifierMigrations]));
