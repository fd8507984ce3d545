import path from 'node:path';
import { z } from 'zod';
import { createLogger, env, parseEnv } from '@platform/runtime';
import { createPool, migrate } from '@platform/db';
import { createCategoryStore } from './store/category-store';
import { categorizationMigrations } from './migrations';
import { readTaxonomyFile, writeTaxonomy } from './taxonomy-import';

const USAGE = 'usage: pnpm admin categories import <file>';

/** Said in one line when no database is named: the import writes to Postgres itself, which `pnpm start`'s embedded one does not offer to another process. */
const NO_DATABASE =
  'DATABASE_URL is not set: `pnpm admin categories import` writes to Postgres directly, and the embedded one of `pnpm start` takes no other process; run it with the DATABASE_URL of a Postgres the platform runs on (`DATABASE_URL=postgres://… pnpm start`), or add single categories with POST $CATEGORIZATION_URL/admin/v1/categories.';

const cliEnv = z.object({
  DATABASE_URL: env.url(['postgres', 'postgresql']),
  DATABASE_DIRECT_URL: env.url(['postgres', 'postgresql']).optional(),
});

/**
 * `pnpm admin categories import <file>`: checks the whole file (a malformed one fails with the
 * line and the reason, before anything is touched), then connects with DATABASE_DIRECT_URL (else DATABASE_URL), applies the
 * migrations, imports and prints a JSON summary. Replicas pick the change up by their poll.
 */
export async function runCategoriesCli(
  args: string[],
  environment: NodeJS.ProcessEnv,
  out: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  const [command, ...rest] = args;
  if (command !== 'import' || rest.length !== 1 || rest[0] === undefined || rest[0] === '') throw new Error(USAGE);
  // pnpm runs scripts from the repository root; INIT_CWD is where the operator typed the command.
  const file = path.resolve(environment.INIT_CWD ?? process.cwd(), rest[0]);
  if (!environment.DATABASE_URL) throw new Error(NO_DATABASE);
  const { DATABASE_URL, DATABASE_DIRECT_URL } = parseEnv(cliEnv, environment);
  const parsed = await readTaxonomyFile(file);

  const logger = createLogger({ service: 'categorization-cli', level: 'warn', stream: process.stderr });
  const pool = createPool({ connectionString: DATABASE_DIRECT_URL ?? DATABASE_URL, logger, max: 2 });
  try {
    await migrate(pool, [categorizationMigrations], logger);
    const summary = await writeTaxonomy(createCategoryStore(pool), file, parsed);
    out.write(`${JSON.stringify(summary)}\n`);
  } finally {
    await pool.end();
  }
}
