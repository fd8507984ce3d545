/**
 * The expand/contract rule (docs/conventions.md, Migrations), as far as a reading of the SQL can
 * hold it: a migration that is new since the previous release may only add. It never drops or
 * renames a table or column the previous release's code names, never changes a column's type,
 * never makes an existing column NOT NULL, never adds a NOT NULL column without a default (the
 * previous release's INSERTs do not name it), sorts after every released migration (node-pg-migrate
 * refuses to start on one that precedes an applied one), and a released migration is never edited.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT, git } from './releases';

export interface Violation {
  migration: string;
  rule: string;
  statement: string;
}

/** The statements of a migration's up section, comments, quoted text and function bodies removed. */
export function upStatements(sql: string): string[] {
  const up = sql.split(/^--\s*Down Migration\s*$/im)[0] ?? '';
  return up
    .replace(/(\$[A-Za-z_]*\$)[\s\S]*?\1/g, "''")
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/--[^\n]*/g, '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split(';')
    .map((statement) => statement.replace(/\s+/g, ' ').trim())
    .filter((statement) => statement !== '');
}

const IDENT = '"?([A-Za-z_][A-Za-z0-9_]*)"?';
const TABLE = `(?:IF EXISTS )?(?:ONLY )?(?:[A-Za-z_]+\\.)?${IDENT}`;
/** Rules whose object (group 1) may go once the previous release no longer names it. */
const CONTRACTING: Array<[string, RegExp]> = [
  ['drops a table', new RegExp(`^DROP TABLE (?:IF EXISTS )?(?:[A-Za-z_]+\\.)?${IDENT}`, 'i')],
  [
    'drops a column',
    new RegExp(`^ALTER TABLE ${TABLE} .*\\bDROP (?:COLUMN )?(?!CONSTRAINT\\b|DEFAULT\\b|NOT\\b)(?:IF EXISTS )?${IDENT}`, 'i'),
  ],
  ['renames a table', new RegExp(`^ALTER TABLE ${TABLE} RENAME TO `, 'i')],
  ['renames a column', new RegExp(`^ALTER TABLE ${TABLE} RENAME (?:COLUMN )?(?!TO\\b|CONSTRAINT\\b)${IDENT} TO `, 'i')],
];
/** Rules that break the previous release whatever it names. */
const BREAKING: Array<[string, RegExp]> = [
  ['changes a column’s type', /^ALTER TABLE .*\bALTER (?:COLUMN )?\S+ (?:SET DATA )?TYPE /i],
  ['makes an existing column NOT NULL', /^ALTER TABLE .*\bALTER (?:COLUMN )?\S+ SET NOT NULL/i],
];
const ADD_COLUMN = /\bADD (?:COLUMN )?(?:IF NOT EXISTS )?"?[A-Za-z_][A-Za-z0-9_]*"? ([^,]*)/gi;

/** Whether the previous release's code names `name` (a whole word) anywhere in its sources. */
export function releaseNames(commit: string, name: string): boolean {
  try {
    git(['grep', '-q', '-w', '-i', '-e', name, commit, '--', 'services/*/src', 'packages/*/src', 'scripts']);
    return true;
  } catch {
    return false;
  }
}

export function statementViolations(migration: string, statement: string, names: (name: string) => boolean): Violation[] {
  const found: Violation[] = [];
  for (const [rule, pattern] of CONTRACTING) {
    const match = pattern.exec(statement);
    const named = [match?.[1], match?.[2]].filter((name): name is string => name !== undefined);
    // A rename or drop of a column: the column (group 2) matters; of a table: the table (group 1).
    const object = named[named.length - 1];
    if (object !== undefined && names(object)) found.push({ migration, rule: `${rule} the previous release names (${object})`, statement });
  }
  for (const [rule, pattern] of BREAKING) if (pattern.test(statement)) found.push({ migration, rule, statement });
  if (/^ALTER TABLE /i.test(statement))
    for (const added of statement.matchAll(ADD_COLUMN)) {
      const definition = added[1] ?? '';
      if (/\bNOT NULL\b/i.test(definition) && !/\bDEFAULT\b/i.test(definition) && !/\bGENERATED\b/i.test(definition))
        found.push({ migration, rule: 'adds a NOT NULL column without a default', statement });
    }
  return found;
}

/** Every migration folder of the workspace: `services/<name>/migrations`. */
export function migrationFolders(): string[] {
  return readdirSync(path.join(ROOT, 'services'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `services/${entry.name}/migrations`)
    .filter((folder) => readdirSync(path.join(ROOT, path.dirname(folder))).includes('migrations'));
}

/** The files of `folder` at `commit`, by name, with their content's blob id. */
function releasedFiles(commit: string, folder: string): Map<string, string> {
  const listing = git(['ls-tree', commit, `${folder}/`]);
  return new Map(
    listing
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [meta, file] = line.split('\t') as [string, string];
        return [path.basename(file), meta.split(' ')[2] as string];
      }),
  );
}

/** What breaks the rule in this checkout's migrations, against the release at `commit`. */
export function migrationViolations(commit: string, names = (name: string) => releaseNames(commit, name)): Violation[] {
  const found: Violation[] = [];
  for (const folder of migrationFolders()) {
    const released = releasedFiles(commit, folder);
    const lastReleased = [...released.keys()].sort().at(-1) ?? '';
    for (const file of readdirSync(path.join(ROOT, folder)).sort()) {
      const migration = `${folder}/${file}`;
      const blob = released.get(file);
      if (blob !== undefined) {
        if (git(['hash-object', migration]) !== blob) found.push({ migration, rule: 'edits a released migration', statement: '' });
        continue;
      }
      if (file < lastReleased) found.push({ migration, rule: `sorts before the released ${lastReleased}`, statement: '' });
      for (const statement of upStatements(readFileSync(path.join(ROOT, migration), 'utf8')))
        found.push(...statementViolations(migration, statement, names));
    }
  }
  return found;
}
