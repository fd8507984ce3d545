import path from 'node:path';
import type { MigrationSet } from './migrate';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * The migration folders of the services that own tables; each keeps its own history table so
 * that services migrate (and deploy) independently.
 */
export const serviceMigrations = {
  user: { dir: path.join(ROOT, 'services/user/migrations'), table: 'pgmigrations_user' },
  categorization: { dir: path.join(ROOT, 'services/categorization/migrations'), table: 'pgmigrations_categorization' },
  notifier: { dir: path.join(ROOT, 'services/notifier/migrations'), table: 'pgmigrations_notifier' },
} satisfies Record<string, MigrationSet>;

export type MigratingService = keyof typeof serviceMigrations;
