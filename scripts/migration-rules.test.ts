/**
 * Expand, then contract one release later (CONTRACT §8, docs/conventions.md): the migrations
 * added since the previous release (CHANGELOG.md) only add, so that the previous release's
 * replicas keep serving on the migrated database during a rolling update.
 */
import { migrationViolations, statementViolations, upStatements } from './migration-rules';
import { previousRelease, releaseCommit } from './releases';

const namedByRelease = (): boolean => true;
const violations = (sql: string, names: (name: string) => boolean = namedByRelease): string[] =>
  upStatements(sql).flatMap((statement) => statementViolations('m.sql', statement, names).map((found) => found.rule));

describe('migrations since the previous release', () => {
  it('when compared with the previous release, then every new migration only adds and no released one changed', () => {
    const release = previousRelease();
    expect(migrationViolations(releaseCommit(release))).toEqual([]);
  });
});

describe('the rules', () => {
  it.each([
    ['DROP TABLE accounts;', 'drops a table the previous release names (accounts)'],
    ['ALTER TABLE accounts DROP COLUMN email;', 'drops a column the previous release names (email)'],
    ['ALTER TABLE IF EXISTS ONLY "accounts" DROP IF EXISTS "email";', 'drops a column the previous release names (email)'],
    ['ALTER TABLE accounts RENAME TO customers;', 'renames a table the previous release names (accounts)'],
    ['ALTER TABLE accounts RENAME COLUMN email TO mail;', 'renames a column the previous release names (email)'],
    ['ALTER TABLE accounts RENAME email TO mail;', 'renames a column the previous release names (email)'],
    ['ALTER TABLE accounts ALTER COLUMN email TYPE varchar(80);', 'changes a column’s type'],
    ['ALTER TABLE accounts ALTER email SET NOT NULL;', 'makes an existing column NOT NULL'],
    ['ALTER TABLE accounts ADD COLUMN region text NOT NULL;', 'adds a NOT NULL column without a default'],
    ['ALTER TABLE accounts ADD region text, ADD COLUMN tier int NOT NULL;', 'adds a NOT NULL column without a default'],
  ])('when a new migration says %s, then it is refused: %s', (sql, rule) => {
    expect(violations(`-- Up Migration\n${sql}\n-- Down Migration\n`)).toEqual([rule]);
  });

  it.each([
    'CREATE TABLE regions (id bigint PRIMARY KEY, name text NOT NULL);',
    "ALTER TABLE accounts ADD COLUMN region text NOT NULL DEFAULT 'eu';",
    'ALTER TABLE accounts ADD COLUMN region text;',
    'ALTER TABLE accounts ALTER COLUMN email DROP NOT NULL, ALTER COLUMN email DROP DEFAULT;',
    'ALTER TABLE accounts DROP CONSTRAINT accounts_email_key;',
    'CREATE INDEX accounts_region ON accounts (region);',
    // Text and function bodies are not statements of the migration.
    "COMMENT ON TABLE accounts IS 'DROP TABLE accounts';",
    'CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN DROP TABLE accounts; END; $$;',
  ])('when a new migration says %s, then it passes', (sql) => {
    expect(violations(`-- Up Migration\n${sql}\n-- Down Migration\nDROP TABLE regions;\n`)).toEqual([]);
  });

  it('when a dropped column is one the previous release’s code never names, then the contract step passes', () => {
    const notNamed = (name: string): boolean => name !== 'legacy_flag';
    expect(violations('ALTER TABLE accounts DROP COLUMN legacy_flag;', notNamed)).toEqual([]);
    expect(violations('ALTER TABLE accounts DROP COLUMN email;', notNamed)).toEqual(['drops a column the previous release names (email)']);
  });
});
