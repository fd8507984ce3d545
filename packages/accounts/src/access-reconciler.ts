import type pg from 'pg';
import type { AccessWriter, KeyAccessRecord } from '@platform/credentials';
import { withTransaction, type Queryable } from '@platform/db';

// Locks. Every writer of access records holds a lock on the account row from before its Redis
// write until its commit, and reads what it writes in a statement after taking the lock (a
// statement's snapshot is taken before it waits, so a read joined to the lock could miss the
// commit it waited for):
// - rotation: FOR UPDATE (user service, api-keys store), then writes whole records;
// - a pool's credit bit going to 0 (a debit or an adjustment to 0): FOR SHARE, then one bit (such
//   changes of one pool queue on the pool's row, of different pools commute, so they may run side
//   by side);
// - a change that opens access (credits from 0, a new key) writes no record before its commit: it
//   takes FOR SHARE and records a pending grant, and after the commit the account is reconciled
//   (below), which waits for every such transaction still open;
// - reconciliation: FOR NO KEY UPDATE, then writes whole records (it waits for both kinds above,
//   and they wait for it; it does not block foreign-key checks of inserts).
const LOCK_SHARED = 'SELECT 1 FROM accounts WHERE id = $1 FOR SHARE';
const LOCK_EXCLUSIVE = 'SELECT id FROM accounts WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE';
const NEXT_ACCOUNTS = 'SELECT id FROM accounts WHERE id > $1 ORDER BY id LIMIT $2 FOR NO KEY UPDATE';
const ACTIVE_KEYS = 'SELECT key_hash FROM api_keys WHERE account_id = $1 AND active';
const RECORDS = `
SELECT k.key_hash, k.account_id, a.key_generation,
       ARRAY(SELECT b.pool_id FROM pool_balances b WHERE b.account_id = k.account_id AND b.credits > 0 ORDER BY b.pool_id) AS pools
  FROM api_keys k JOIN accounts a ON a.id = k.account_id
 WHERE k.account_id = ANY($1::int[]) AND k.active`;
const INACTIVE_KEYS = 'SELECT id, key_hash FROM api_keys WHERE id > $1 AND NOT active ORDER BY id LIMIT $2';

/**
 * The active keys of an account, read after taking the writers' shared lock on its account row
 * (call inside the transaction that changes a pool's credits, before its Redis write).
 */
export async function activeKeysForUpdate(db: Queryable, accountId: number): Promise<string[]> {
  await db.query(LOCK_SHARED, [accountId]);
  const result = await db.query<{ key_hash: string }>(ACTIVE_KEYS, [accountId]);
  return result.rows.map((row) => row.key_hash);
}

/**
 * The access records of these accounts' active keys as this transaction sees them. The caller
 * holds the account rows (exclusively, or has just created them).
 */
export async function accessRecordsOf(db: Queryable, accountIds: readonly number[]): Promise<KeyAccessRecord[]> {
  if (accountIds.length === 0) return [];
  const result = await db.query<{ key_hash: string; account_id: number; key_generation: number | string; pools: number[] }>(RECORDS, [
    accountIds,
  ]);
  return result.rows.map((row) => ({
    keyHash: row.key_hash,
    accountId: Number(row.account_id),
    generation: Number(row.key_generation),
    creditedPools: row.pools.map(Number),
  }));
}

/**
 * Rewrites one account's records from Postgres (after a change that may have failed half-way, or
 * after one that opened access has committed). `settled` runs in the same transaction after the
 * Redis writes, still under the lock (the user service deletes the account's pending grant there).
 */
export async function reconcileAccount(
  pool: pg.Pool,
  writer: AccessWriter,
  accountId: number,
  settled?: (db: Queryable) => Promise<void>,
): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query(LOCK_EXCLUSIVE, [[accountId]]);
    const inactive = await client.query<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE account_id = $1 AND NOT active', [
      accountId,
    ]);
    await writer.deleteKeys(inactive.rows.map((row) => row.key_hash));
    await writer.putKeys(await accessRecordsOf(client, [accountId]));
    await settled?.(client);
  });
}

export interface ReconcileReport {
  activeKeys: number;
  inactiveKeys: number;
}

/**
 * Makes the access records agree with Postgres after Redis may have lost writes (CONTRACT §3):
 * removes the record of every key that is no longer active (a restored snapshot may hold it), then
 * rewrites every active key's record, generation up to Postgres's and credits as in Postgres, a
 * batch of accounts at a time under the reconciliation lock, so no concurrent change is undone.
 */
export async function reconcileAll(pool: pg.Pool, writer: AccessWriter, batchSize = 1000): Promise<ReconcileReport> {
  const report: ReconcileReport = { activeKeys: 0, inactiveKeys: 0 };
  for (let after = 0; ;) {
    const result = await pool.query<{ id: number; key_hash: string }>(INACTIVE_KEYS, [after, batchSize]);
    await writer.deleteKeys(result.rows.map((row) => row.key_hash));
    report.inactiveKeys += result.rows.length;
    if (result.rows.length < batchSize) break;
    after = Number(result.rows[result.rows.length - 1]?.id);
  }
  for (let after = 0; ;) {
    const ids = await withTransaction(pool, async (client) => {
      const locked = await client.query<{ id: number }>(NEXT_ACCOUNTS, [after, batchSize]);
      const accountIds = locked.rows.map((row) => Number(row.id));
      const records = await accessRecordsOf(client, accountIds);
      await writer.putKeys(records);
      report.activeKeys += records.length;
      return accountIds;
    });
    if (ids.length < batchSize) break;
    after = ids[ids.length - 1] as number;
  }
  return report;
}
