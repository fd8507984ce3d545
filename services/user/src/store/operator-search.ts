import type { Queryable } from '@platform/db';
import type { AccountPool, AccountSearch, AccountSummary } from '../domain/operator-store';

const MAX_INT = 2_147_483_647;
/** The low threshold of an account without a settings row (CONTRACT §6: the real default). */
const DEFAULT_LOW_THRESHOLD = 10;

/** `%`, `_` and `\` match themselves in the LIKE pattern. */
function likeSubstring(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

// Balance filters are per-candidate EXISTS probes on pool_balances' primary key (account_id,
// pool_id): the scan stays on the accounts' primary key, newest first, and stops at the page.
const LOW_POOL = `EXISTS (SELECT 1 FROM pool_balances p LEFT JOIN notification_settings n ON n.account_id = p.account_id
  WHERE p.account_id = accounts.id AND p.credits < COALESCE(n.low_balance_threshold, ${DEFAULT_LOW_THRESHOLD}))`;
const EMPTY_POOL = 'EXISTS (SELECT 1 FROM pool_balances p WHERE p.account_id = accounts.id AND p.credits = 0)';

/**
 * One statement per search shape, so that the planner sees which index serves it: the unique
 * index on lower(email) for an exact e-mail, the trigram index (accounts_email_trgm) for a
 * substring, the primary key for an id and for the newest-first order.
 */
export async function searchAccounts(db: Queryable, search: AccountSearch): Promise<AccountSummary[]> {
  const values: unknown[] = [];
  const where: string[] = [];
  const param = (value: unknown): string => `$${values.push(value)}`;
  if (search.email !== undefined) where.push(`lower(email) = lower(${param(search.email)})`);
  if (search.q !== undefined) {
    const id = /^[0-9]{1,10}$/.test(search.q) && Number(search.q) <= MAX_INT ? Number(search.q) : undefined;
    const substring = `lower(email) LIKE ${param(likeSubstring(search.q))}`;
    where.push(id === undefined ? substring : `(${substring} OR id = ${param(id)})`);
  }
  if (search.status !== undefined) where.push(`disabled = ${param(search.status === 'disabled')}`);
  if (search.balance === 'low') where.push(LOW_POOL);
  if (search.balance === 'empty') where.push(EMPTY_POOL);
  if (search.before !== undefined) where.push(`id < ${param(search.before)}`);
  const result = await db.query<{ id: number; email: string; created_at: Date; disabled: boolean }>(
    `SELECT id, email, created_at, disabled FROM accounts ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY id DESC LIMIT ${param(search.limit)}`,
    values,
  );
  return result.rows.map((row) => ({ id: row.id, email: row.email, createdAt: row.created_at, disabled: row.disabled }));
}

/** The pools of a page of accounts, by account, ordered by pool id: one query on pool_balances' primary key. */
export async function poolsOf(db: Queryable, accountIds: readonly number[]): Promise<Map<number, AccountPool[]>> {
  const pools = new Map<number, AccountPool[]>();
  if (accountIds.length === 0) return pools;
  const result = await db.query<{ account_id: number; pool_id: number; credits: string }>(
    'SELECT account_id, pool_id, credits FROM pool_balances WHERE account_id = ANY($1::int[]) ORDER BY account_id, pool_id',
    [accountIds],
  );
  for (const row of result.rows) {
    const held = pools.get(row.account_id) ?? [];
    held.push({ poolId: row.pool_id, credits: Number(row.credits) });
    pools.set(row.account_id, held);
  }
  return pools;
}
