import type { Queryable } from '@platform/db';
import type { AccountRecord } from '../domain/user-store';

/** Inserts an account; undefined when the e-mail is taken (compared case-insensitively). */
export async function insertAccount(db: Queryable, email: string): Promise<AccountRecord | undefined> {
  const result = await db.query<{ id: number; email: string; created_at: Date }>(
    'INSERT INTO accounts (email) VALUES ($1) ON CONFLICT (lower(email)) DO NOTHING RETURNING id, email, created_at',
    [email],
  );
  const row = result.rows[0];
  return row ? { id: row.id, email: row.email, createdAt: row.created_at } : undefined;
}

export async function findAccount(db: Queryable, accountId: number): Promise<AccountRecord | undefined> {
  const result = await db.query<{ id: number; email: string; created_at: Date }>(
    'SELECT id, email, created_at FROM accounts WHERE id = $1',
    [accountId],
  );
  const row = result.rows[0];
  return row ? { id: row.id, email: row.email, createdAt: row.created_at } : undefined;
}
