import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// One read model of the user service's tables: SQL naming them lives in services/user (which
// owns them) and in @platform/accounts (every other unit's reads), nowhere else in production
// code. Tests (and packages/testing, test support whose fixtures write accounts as the user
// service does) may set up and inspect the tables directly.

const ROOT = path.resolve(__dirname, '../../..');
const HOMES = new Set(['services/user', 'packages/accounts', 'packages/testing']);

/** The tables the user service's migrations create. */
function userTables(): string[] {
  const dir = path.join(ROOT, 'services/user/migrations');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .flatMap((name) => [...readFileSync(path.join(dir, name), 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/g)])
    .map((match) => match[1] as string);
}

const TABLES = userTables();
// SQL is written in upper case in this repository: a keyword that names a table, then the table.
const SQL_NAMING_A_USER_TABLE = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\\s+(${TABLES.join('|')})\\b`);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(full);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(entry.name) ? [full] : [];
  });
}

/** `folder/file:line` of every line of production code under the folder whose SQL names a user table. */
function queriesOfUserTables(folder: string): string[] {
  const files = sourceFiles(path.join(ROOT, folder)).filter(
    (file) => !file.endsWith('.test.ts') && !MEASURES_THE_TABLES.has(path.relative(ROOT, file)),
  );
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) => (SQL_NAMING_A_USER_TABLE.test(line) ? [`${path.relative(ROOT, file)}:${index + 1}`] : [])),
  );
}

// Benchmarks that measure the tables themselves (they seed a million accounts, read the outbox's
// backlog, or seed the accounts whose batches they measure in Postgres), and the chaos run's
// observer, which reads the pools and the ledger as the truth its checker holds the history to.
const MEASURES_THE_TABLES = new Set([
  'bench/operator-search.ts',
  'bench/outbox-backlog.ts',
  'bench/usage-statements.ts',
  'scripts/chaos/observe.ts',
]);

// Each unit's src/, and the repository's own commands (scripts/, bench/).
const units = ['packages', 'services'].flatMap((group) => readdirSync(path.join(ROOT, group)).map((name) => `${group}/${name}`));
const folders = [...units.filter((unit) => !HOMES.has(unit)).map((unit) => `${unit}/src`), 'scripts', 'bench'];

describe('queries of the user service tables', () => {
  it('finds the user tables in the migrations', () => {
    expect(TABLES).toEqual(
      expect.arrayContaining(['accounts', 'api_keys', 'pool_balances', 'products', 'notification_settings', 'credit_ledger']),
    );
  });

  it('recognises such a query where one is written (so the search below cannot pass by finding nothing)', () => {
    expect(queriesOfUserTables('packages/accounts/src').length).toBeGreaterThan(0);
    expect(SQL_NAMING_A_USER_TABLE.test('SELECT k.key_hash FROM api_keys k WHERE k.active')).toBe(true);
    expect(SQL_NAMING_A_USER_TABLE.test('reads from accounts and products')).toBe(false);
  });

  it.each(folders)('%s has none: it calls @platform/accounts', (folder) => {
    expect(queriesOfUserTables(folder)).toEqual([]);
  });
});
