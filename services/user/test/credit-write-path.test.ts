import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// One write path for credits (docs/architecture.md, "One write path for credits"): the ledger
// rows and the outbox rows of every balance change are written by one SQL function,
// write_credit_changes (a migration), which services/user/src/store/credit-writes.ts alone calls
// (with the outbox row, one message per commit, built by store/outbox.ts's outboxRow); no other
// statement, in production code or in a migration, writes either table. Tests may write them directly.

const ROOT = path.resolve(__dirname, '../../..');
const WRITE_PATH = 'services/user/src/store/credit-writes.ts';
// The migrations that define it: the first, and its answers inserted without ON CONFLICT.
const WRITE_FUNCTIONS = [
  'services/user/migrations/20261128110000000_write_credit_changes.sql',
  'services/user/migrations/20261206180000000_write_credit_answers_plain.sql',
];
const OUTBOX_STORE = 'services/user/src/store/outbox.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist', 'test'].includes(entry.name) ? [] : sourceFiles(full);
    return /\.(ts|tsx|js|mjs|cjs|sql)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

// packages/testing is the tests' own support (its seeds write the tables directly, as tests may).
const production = ['services', 'packages', 'scripts', 'bench']
  .flatMap((folder) => sourceFiles(path.join(ROOT, folder)))
  .filter((file) => !path.relative(ROOT, file).startsWith('packages/testing/'));

/** `file` (relative) of every production file whose text matches. */
const filesMatching = (pattern: RegExp): string[] =>
  production
    .filter((file) => pattern.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(ROOT, file))
    .sort();

// SQL is written in upper case in this repository: INSERT INTO (or COPY / UPDATE / DELETE) the table.
const WRITES_LEDGER = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|COPY)\s+credit_ledger\b/;
const INSERTS_OUTBOX = /\b(?:INSERT\s+INTO|COPY)\s+outbox_events\b/;

describe('one write path for credits', () => {
  it('recognises such writes where they are written (so the searches below cannot pass by finding nothing)', () => {
    expect(WRITES_LEDGER.test('INSERT INTO credit_ledger (account_id) SELECT 1')).toBe(true);
    expect(INSERTS_OUTBOX.test('INSERT INTO outbox_events (id) VALUES ($1)')).toBe(true);
    expect(WRITES_LEDGER.test('SELECT delta FROM credit_ledger')).toBe(false);
  });

  it('writes ledger rows in write_credit_changes only, which store/credit-writes.ts alone calls', () => {
    expect(filesMatching(WRITES_LEDGER)).toEqual(WRITE_FUNCTIONS);
    expect(filesMatching(/\bwrite_credit_changes\s*\(/)).toEqual([...WRITE_FUNCTIONS, WRITE_PATH]);
  });

  it('inserts outbox rows in write_credit_changes only, with the row store/outbox.ts builds for store/credit-writes.ts', () => {
    expect(filesMatching(INSERTS_OUTBOX)).toEqual(WRITE_FUNCTIONS);
    expect(filesMatching(/\boutboxRow\s*\(/).filter((file) => file !== OUTBOX_STORE)).toEqual([WRITE_PATH]);
  });

  it("is called by the one account transaction alone (usage batches, admin changes, reservations' hold and return)", () => {
    const accountTransaction = 'services/user/src/store/account-transaction.ts';
    expect(filesMatching(/\bwriteCreditChanges\s*\(/).filter((file) => file !== WRITE_PATH)).toEqual([accountTransaction]);
    expect(filesMatching(/\bwriteCreditChangesIfUnchanged\s*\(/).filter((file) => file !== WRITE_PATH)).toEqual([accountTransaction]);
  });

  it("writes notification settings in the account transaction's apply alone (a `settings` change)", () => {
    const writesSettings = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|COPY)\s+notification_settings\b/;
    expect(writesSettings.test('INSERT INTO notification_settings AS s (account_id) VALUES ($1)')).toBe(true);
    const userSource = (files: string[]) => files.filter((file) => file.startsWith('services/user/src/'));
    expect(userSource(filesMatching(writesSettings))).toEqual(['services/user/src/store/notification-settings.ts']);
    expect(userSource(filesMatching(/\bwriteNotificationSettings\s*\(/))).toEqual([
      'services/user/src/store/account-transaction.ts',
      'services/user/src/store/notification-settings.ts',
    ]);
  });

  it('opens transactions in the one account transaction alone (no other store of the user service says BEGIN)', () => {
    const opens = /\bwithTransaction\s*\(|\bquery\(\s*['"`]BEGIN\b/;
    expect(filesMatching(opens).filter((file) => file.startsWith('services/user/src/'))).toEqual([
      'services/user/src/store/account-transaction.ts',
    ]);
  });
});
