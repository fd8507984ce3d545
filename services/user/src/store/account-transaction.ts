import type pg from 'pg';
import { appendAdminAudit } from '@platform/accounts';
import { withClient, withTransaction, type Queryable } from '@platform/db';
import { accessEffectOf, type AccountChange } from '../domain/account-change';
import { type AccountTransaction, type AccountTransactions, type AuditWrite, type TransactionKind } from '../domain/account-transaction';
import type { TestFault } from '../test-fault';
import { withAccessRules, type AccessEffects, type AccessRecordsDeps } from './access-records';
import { insertAccount } from './accounts';
import { holdPool } from './balances';
import { creditWritesOf, endedAsConflict, writeCreditChanges, writeCreditChangesIfUnchanged } from './credit-writes';
import { readNotificationSettings, writeNotificationSettings } from './notification-settings';
import { lockPoolsAndAnswers } from './usage-batch';

const LOCK_ACCOUNT = 'SELECT id, email, disabled FROM accounts WHERE id = $1 FOR UPDATE';
// The account's latest key is its current one (rotations add keys; disabling keeps it, inactive).
// Read in a statement of its own, after the lock: a statement's snapshot is taken before it waits,
// and a lock that was held re-reads only the locked row, so a join would return the key of before
// the holder's commit (a rotation's replaced key, enabled again or replaced twice).
const CURRENT_KEY = 'SELECT id, key_hash, active FROM api_keys WHERE account_id = $1 ORDER BY id DESC LIMIT 1';
const LOCK_ACTIVE_KEY = `
SELECT k.id, k.account_id FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1 AND k.active FOR UPDATE`;
const LOCK_POOL = 'SELECT credits FROM pool_balances WHERE account_id = $1 AND pool_id = $2 FOR UPDATE';
const EMAIL_TAKEN = 'SELECT 1 FROM accounts WHERE lower(email) = lower($1) AND id <> $2';

/** The rows of one change (its credits are written with the others', its access after them). */
async function writeRows(db: Queryable, change: AccountChange): Promise<void> {
  switch (change.kind) {
    case 'key-replaced':
      await db.query('UPDATE api_keys SET active = false, deactivated_at = now() WHERE id = $1 AND active', [change.old.keyId]);
      // Raised, never lowered: earlier tokens stay revoked (CONTRACT §4.4).
      await db.query('UPDATE accounts SET key_generation = key_generation + 1 WHERE id = $1', [change.old.accountId]);
      return;
    case 'key-added':
      await db.query(
        'INSERT INTO api_keys (account_id, key_hash, active, deactivated_at) VALUES ($1, $2, $3, CASE WHEN $3 THEN NULL ELSE now() END)',
        [change.accountId, change.keyHash, change.active],
      );
      return;
    case 'disabled':
      await db.query('UPDATE accounts SET disabled = true, key_generation = key_generation + 1 WHERE id = $1', [change.key.accountId]);
      await db.query('UPDATE api_keys SET active = false, deactivated_at = now() WHERE account_id = $1 AND active', [change.key.accountId]);
      return;
    case 'enabled':
      await db.query('UPDATE accounts SET disabled = false WHERE id = $1', [change.key.accountId]);
      await db.query('UPDATE api_keys SET active = true, deactivated_at = NULL WHERE id = $1', [change.key.keyId]);
      return;
    case 'email':
      await db.query('UPDATE accounts SET email = $2 WHERE id = $1', [change.accountId, change.email]);
      return;
    case 'settings':
      return writeNotificationSettings(db, change.accountId, change.patch);
    case 'credits':
      return;
  }
}

/**
 * The audit row, and the actor every later ledger row of this transaction records (the ledger's
 * `actor` column defaults to this transaction-local setting, so the credit write need not name it).
 */
export async function writeAudit(db: Queryable, entry: AuditWrite): Promise<void> {
  await db.query("SELECT set_config('platform.actor', $1, true)", [entry.actor]);
  await appendAdminAudit(db, entry);
}

const creditsOf = (changes: readonly AccountChange[]) => changes.flatMap((change) => (change.kind === 'credits' ? [change] : []));

function transactionOn(client: pg.PoolClient, effects: AccessEffects): AccountTransaction {
  let creditsWritten = false;
  return {
    async lockAccount(accountId) {
      const row = (await client.query<{ id: number; email: string; disabled: boolean }>(LOCK_ACCOUNT, [accountId])).rows[0];
      if (!row) return undefined;
      const current = (await client.query<{ id: number; key_hash: string; active: boolean }>(CURRENT_KEY, [accountId])).rows[0];
      if (!current) return undefined;
      const key = { accountId, keyId: current.id, keyHash: current.key_hash, active: current.active };
      return { id: row.id, email: row.email, disabled: row.disabled, key };
    },
    async lockActiveKey(keyHash) {
      const row = (await client.query<{ id: number; account_id: number }>(LOCK_ACTIVE_KEY, [keyHash])).rows[0];
      return row ? { accountId: row.account_id, keyId: row.id, keyHash, active: true } : undefined;
    },
    insertAccount: (email) => insertAccount(client, email),
    emailTaken: async (accountId, email) => (await client.query(EMAIL_TAKEN, [email, accountId])).rows.length > 0,
    holdPool: (accountId, poolId) => holdPool(client, accountId, poolId),
    async lockPool(accountId, poolId) {
      const row = (await client.query<{ credits: string }>(LOCK_POOL, [accountId, poolId])).rows[0];
      return row ? Number(row.credits) : undefined;
    },
    lockPoolsAndAnswers: (keys, requestIds) => lockPoolsAndAnswers(client, keys, requestIds),
    readSettings: (accountId) => readNotificationSettings(client, accountId),
    async apply(changes, audit) {
      if (audit) await writeAudit(client, audit);
      for (const change of changes) await writeRows(client, change);
      const credits = creditsOf(changes);
      if (credits.length > 0) {
        // One statement per transaction: its events are one outbox message (CONTRACT §6).
        if (creditsWritten) throw new Error('an account transaction writes its credit changes once');
        creditsWritten = true;
        await writeCreditChanges(client, creditWritesOf(credits));
      }
      for (const change of changes) await effects.write(change, client);
    },
  };
}

/**
 * The one account transaction (AccountTransactions) on Postgres, with the access-store writes of
 * CONTRACT §3 around it (access-records.ts). `transactionOn` is for the stores whose own rows
 * share it (reservations): their SQL on `db`, every account change through `tx.apply`.
 */
export interface AccountTransactionsOn extends AccountTransactions {
  transactionOn<T>(kind: TransactionKind, fn: (tx: AccountTransaction, db: Queryable) => Promise<T>): Promise<T>;
}

/** Runs of a `usage` transaction that Postgres ended as a deadlock or a serialization failure. */
const USAGE_ATTEMPTS = 3;

/**
 * On `pool` (the usage batches have connections of their own: one instance each). `fault`:
 * test-only (TEST_FAULT `usage-answer-without-commit`: a change applied alone answered, not written).
 */
export function createAccountTransactions(pool: pg.Pool, access: AccessRecordsDeps, fault?: TestFault): AccountTransactionsOn {
  const once = <T>(kind: TransactionKind, fn: (tx: AccountTransaction, db: Queryable) => Promise<T>): Promise<T> =>
    withAccessRules(access, async (effects) => {
      const result = await withTransaction(pool, async (client) => {
        const answer = await fn(transactionOn(client, effects), client);
        if (kind === 'account') await access.pauses.at('user-before-commit');
        return answer;
      });
      if (kind === 'usage') await access.pauses.at('usage-after-commit');
      return result;
    });
  const run = async <T>(kind: TransactionKind, fn: (tx: AccountTransaction, db: Queryable) => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await once(kind, fn);
      } catch (error) {
        if (kind !== 'usage' || attempt >= USAGE_ATTEMPTS || !endedAsConflict(error)) throw error;
      }
    }
  };
  return {
    transaction: run,
    transactionOn: run,
    async applyAlone(changes) {
      if (changes.some((change) => change.kind !== 'credits' || accessEffectOf(change) !== 'none')) {
        throw new Error('only credit changes that neither close nor open access are applied alone');
      }
      if (fault?.('usage-answer-without-commit')) return true;
      const writes = creditWritesOf(creditsOf(changes));
      // On a client of its own: a write that found something changed must not cost the connection.
      if (!(await withClient(pool, (client) => writeCreditChangesIfUnchanged(client, writes)))) return false;
      // Its events are committed: the relay publishes them now rather than at its next poll.
      if (writes.events.length > 0) access.wake();
      await access.pauses.at('usage-after-commit');
      return true;
    },
  };
}
