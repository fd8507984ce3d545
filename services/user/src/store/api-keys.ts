import type { Queryable } from '@platform/db';
import type { LockedKey } from '../domain/user-store';

const LOCK_ACTIVE = `
SELECT k.id, k.account_id, a.key_generation
  FROM api_keys k JOIN accounts a ON a.id = k.account_id
 WHERE k.key_hash = $1 AND k.active
   FOR UPDATE`;

/**
 * Locks the active key with this hash and its account row (inside a transaction). Concurrent
 * rotations with one key queue here; once the first commits, the others find no active key.
 */
export async function lockActiveKey(db: Queryable, keyHash: string): Promise<LockedKey | undefined> {
  const result = await db.query<{ id: number; account_id: number; key_generation: number }>(LOCK_ACTIVE, [keyHash]);
  const row = result.rows[0];
  return row ? { keyId: row.id, accountId: row.account_id, generation: Number(row.key_generation) } : undefined;
}

export async function insertApiKey(db: Queryable, accountId: number, keyHash: string): Promise<void> {
  await db.query('INSERT INTO api_keys (account_id, key_hash) VALUES ($1, $2)', [accountId, keyHash]);
}

/** Deactivates the locked key, stores the new key's hash and records the new key generation. */
export async function replaceApiKey(db: Queryable, locked: LockedKey, newKeyHash: string, generation: number): Promise<void> {
  await db.query('UPDATE api_keys SET active = false, deactivated_at = now() WHERE id = $1', [locked.keyId]);
  await insertApiKey(db, locked.accountId, newKeyHash);
  await raiseKeyGeneration(db, locked.accountId, generation);
}

/** Never lowers the generation: a lower one would let revoked tokens through again. */
async function raiseKeyGeneration(db: Queryable, accountId: number, generation: number): Promise<void> {
  await db.query('UPDATE accounts SET key_generation = GREATEST(key_generation, $2) WHERE id = $1', [accountId, generation]);
}
