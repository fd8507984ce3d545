import type { Queryable } from '@platform/db';
import type { AccountRecord } from '../domain/user-store';

/** Inserts an account; undefined when the e-mail is taken (compared case-insensitively). */
export async function insertAccount(db: Queryable, email: string): Promise<AccountRecord | undefined> {
  const result = await db.query<{ id: number; email: string; created_at: Date; disabled: boolean }>(
    'INSERT INTO accounts (email) VALUES ($1) ON CONFLICT (lower(email)) DO NOTHING RETURNING id, email, created_at, disabled',
    [email],
  );
  const row = result.rows[0];
  return row ? { id: row.id, email: row.email, createdAt: row.created_at, disabled: row.disabled } : undefined;
}

export async function findAccount(db: Queryable, accountId: number): Promise<AccountRecord | undefined> {
  const result = await db.query<{ id: number; email: string; created_at: Date; disabled: boolean }>(
    'SELECT id, email, created_at, disabled FROM accounts WHERE id = $1',
    [accountId],
  );
  const row = result.rows[0];
  return row ? { id: row.id, email: row.email, createdAt: row.created_at, disabled: row.disabled } : undefined;
}
