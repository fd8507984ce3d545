import type pg from 'pg';
import type { Queryable } from '@platform/db';
import type { AccountTransactions } from '../domain/account-transaction';
import type { AuditEntry, AuditFilter, LedgerEntry, OperatorStore } from '../domain/operator-store';
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

/** The operator's reads on Postgres, and its changes through the one account transaction. */
export function createOperatorStore(pool: pg.Pool, accounts: AccountTransactions): OperatorStore {
  return {
    searchAccounts: (search) => searchAccounts(pool, search),
    poolsOf: (accountIds) => poolsOf(pool, accountIds),
    ledgerPage: (accountId, before, limit) => ledgerPage(pool, accountId, before, limit),
    auditPage: (filter, before, limit) => auditPage(pool, filter, before, limit),
    accounts,
  };
}
