import { appendAdminAudit } from '@platform/accounts';
import type pg from 'pg';
import { withTransaction, type Queryable } from '@platform/db';
import type {
  AuditEntry,
  AuditFilter,
  AuditWrite,
  LedgerEntry,
  LockedAccount,
  OperatorStore,
  OperatorTransaction,
} from '../domain/operator-store';
import { withAccessRules, type AccessEffects, type AccessRecordsDeps } from './access-records';
import { poolsOf, searchAccounts } from './operator-search';

// A usage row written before the ledger kept product ids counts under its pool's id.
const LEDGER_PAGE = `
SELECT id, COALESCE(product_id, pool_id) AS product_id, delta, credits_after, cause, actor, created_at
  FROM credit_ledger
 WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2)
 ORDER BY id DESC LIMIT $3`;

async function ledgerPage(db: Queryable, accountId: number, before: number | undefined, limit: number): Promise<LedgerEntry[]> {
  const result = await db.query<{
    id: string;
    product_id: number;
    delta: string;
    credits_after: string;
    cause: LedgerEntry['cause'];
    actor: string | null;
    created_at: Date;
  }>(LEDGER_PAGE, [accountId, before ?? null, limit]);
  return result.rows.map((row) => ({
    id: Number(row.id),
    productId: row.product_id,
    delta: Number(row.delta),
    credits: Number(row.credits_after),
    cause: row.cause,
    actor: row.actor,
    at: row.created_at,
  }));
}

async function auditPage(db: Queryable, filter: AuditFilter, before: number | undefined, limit: number): Promise<AuditEntry[]> {
  const values: unknown[] = [];
  const param = (value: unknown): string => `$${values.push(value)}`;
  const where: string[] = [];
  // One account's rows come from admin_audit_account (account_id, id); the others walk the key newest first.
  if (filter.accountId !== undefined) where.push(`account_id = ${param(filter.accountId)}`);
  if (filter.actor !== undefined) where.push(`actor = ${param(filter.actor)}`);
  if (filter.action !== undefined) where.push(`action = ${param(filter.action)}`);
  if (filter.from !== undefined) where.push(`at >= ${param(filter.from)}`);
  if (filter.to !== undefined) where.push(`at < ${param(filter.to)}`);
  if (before !== undefined) where.push(`id < ${param(before)}`);
  const result = await db.query<{
    id: string;
    at: Date;
    actor: string;
    action: string;
    account_id: number | null;
    details: Record<string, unknown>;
  }>(
    `SELECT id, at, actor, action, account_id, details FROM admin_audit
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${param(limit)}`,
    values,
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    at: row.at,
    actor: row.actor,
    action: row.action,
    accountId: row.account_id,
    details: row.details,
  }));
}

/**
 * The audit row, and the actor every later ledger row of this transaction records (the ledger's
 * `actor` column defaults to this transaction-local setting, so the balance stores need not name it).
 */
export async function writeAudit(db: Queryable, entry: AuditWrite): Promise<void> {
  await db.query("SELECT set_config('platform.actor', $1, true)", [entry.actor]);
  await appendAdminAudit(db, entry);
}

// The account's latest key is its current one (rotations add keys; disabling keeps it, inactive).
const LOCK_ACCOUNT = `
SELECT a.id, a.email, a.disabled, a.key_generation, k.id AS key_id, k.key_hash, k.active
  FROM accounts a
  JOIN LATERAL (SELECT id, key_hash, active FROM api_keys WHERE account_id = a.id ORDER BY id DESC LIMIT 1) k ON true
 WHERE a.id = $1
   FOR UPDATE OF a`;

async function lockAccount(db: Queryable, accountId: number): Promise<LockedAccount | undefined> {
  const result = await db.query<{
    id: number;
    email: string;
    disabled: boolean;
    key_generation: string;
    key_id: number;
    key_hash: string;
    active: boolean;
  }>(LOCK_ACCOUNT, [accountId]);
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    email: row.email,
    disabled: row.disabled,
    generation: Number(row.key_generation),
    keyId: row.key_id,
    keyHash: row.key_hash,
    keyActive: row.active,
  };
}

async function changeEmail(db: Queryable, accountId: number, email: string): Promise<boolean> {
  const taken = await db.query('SELECT 1 FROM accounts WHERE lower(email) = lower($1) AND id <> $2', [email, accountId]);
  if (taken.rows.length > 0) return false;
  await db.query('UPDATE accounts SET email = $2 WHERE id = $1', [accountId, email]);
  return true;
}

function transactionOf(client: pg.PoolClient, effects: AccessEffects): OperatorTransaction {
  return {
    audit: (entry) => writeAudit(client, entry),
    lockAccount: (accountId) => lockAccount(client, accountId),
    changeEmail: (accountId, email) => changeEmail(client, accountId, email),
    async disable(account) {
      await client.query('UPDATE accounts SET disabled = true, key_generation = key_generation + 1 WHERE id = $1', [account.id]);
      await client.query('UPDATE api_keys SET active = false, deactivated_at = now() WHERE account_id = $1 AND active', [account.id]);
    },
    async enable(account) {
      await client.query('UPDATE accounts SET disabled = false WHERE id = $1', [account.id]);
      await client.query('UPDATE api_keys SET active = true, deactivated_at = NULL WHERE id = $1', [account.keyId]);
    },
    async replaceKey(account, newKeyHash) {
      await client.query('UPDATE api_keys SET active = false, deactivated_at = now() WHERE id = $1 AND active', [account.keyId]);
      await client.query('INSERT INTO api_keys (account_id, key_hash, active, deactivated_at) VALUES ($1, $2, $3, $4)', [
        account.id,
        newKeyHash,
        !account.disabled,
        account.disabled ? new Date() : null,
      ]);
      await client.query('UPDATE accounts SET key_generation = key_generation + 1 WHERE id = $1', [account.id]);
    },
    // Closing writes go before the commit (a failure fails the change: 503); opening ones are
    // recorded in the transaction and written after its commit (access-records.ts, AccessEffects).
    closeAccess: (accountId, keyHashes) => effects.deleteKeys(accountId, keyHashes),
    carryIssuanceWindow: (accountId, fromKeyHash, toKeyHash) => effects.carryIssuanceWindow(accountId, fromKeyHash, toKeyHash),
    openAccess: (accountId) => effects.grant(client, accountId),
  };
}

/** The operator's store on Postgres, with the access-store writes of CONTRACT §3. */
export function createOperatorStore(pool: pg.Pool, access: AccessRecordsDeps): OperatorStore {
  return {
    searchAccounts: (search) => searchAccounts(pool, search),
    poolsOf: (accountIds) => poolsOf(pool, accountIds),
    ledgerPage: (accountId, before, limit) => ledgerPage(pool, accountId, before, limit),
    auditPage: (filter, before, limit) => auditPage(pool, filter, before, limit),
    transaction: (fn) => withAccessRules(access, (effects) => withTransaction(pool, (client) => fn(transactionOf(client, effects)))),
  };
}
