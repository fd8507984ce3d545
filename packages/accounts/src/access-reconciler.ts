import type pg from 'pg';
import type { AccessSweep, AccessWriter, KeyAccessRecord } from '@platform/credentials';
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
// The accounts of keys the store holds, then which of those keys Postgres knows as active.
const LOCK_ACCOUNTS_OF_KEYS = `
SELECT id FROM accounts WHERE id IN (SELECT account_id FROM api_keys WHERE key_hash = ANY($1::text[])) ORDER BY id FOR NO KEY UPDATE`;
const ACTIVE_AMONG = 'SELECT key_hash FROM api_keys WHERE key_hash = ANY($1::text[]) AND active';

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
  /** Keys the store held something of (a record, tokens, an issuance window) that Postgres does not know as active. */
  removedKeys: number;
}

/**
 * Removes everything the store holds of keys that Postgres does not know as active: replaced or
 * disabled keys (a restored Redis snapshot may hold them) and keys Postgres has never heard of (a
 * restored Postgres: keys made after its restore point). Each batch holds the rows of the accounts
 * that have those keys, so an enabling or a new key committed meanwhile (whose record is written
 * after its commit, under the same lock) is never removed.
 */
async function removeUnknownKeys(pool: pg.Pool, store: AccessWriter & AccessSweep, report: ReconcileReport): Promise<void> {
  await store.storedKeys(async (keyHashes) => {
    await withTransaction(pool, async (client) => {
      await client.query(LOCK_ACCOUNTS_OF_KEYS, [keyHashes]);
      const active = new Set((await client.query<{ key_hash: string }>(ACTIVE_AMONG, [keyHashes])).rows.map((row) => row.key_hash));
      const unknown = keyHashes.filter((keyHash) => !active.has(keyHash));
      await store.forgetKeys(unknown);
      report.removedKeys += unknown.length;
    });
  });
}

/**
 * Makes the access store agree with Postgres after either may have lost writes (CONTRACT §3: a
 * Redis restart or restored snapshot, a Postgres restore): first every key Postgres does not know
 * as active goes, with its tokens; then every active key's record is rewritten, generation up to
 * Postgres's and credits as in Postgres, a batch of accounts at a time under the reconciliation
 * lock, so no concurrent change is undone.
 *
 * Why a token of a lost timeline cannot verify again, ever: a token verifies only while the
 * record under its OWN key's hash holds exactly the generation it was minted under (the store's
 * token lookup). The first step removes the record and every token of each key the restored
 * database does not know as active, and such a key never becomes active again (a rotation or a
 * new account makes a new random key, never an old one's hash; enabling reactivates the
 * account's current key, which is active after the restore, or inactive and so removed here with
 * its tokens). Generations are not what protects here: a rotation after the restore gives the
 * new key the generation a lost rotation gave another key (both Postgres's + 1), and that does
 * not matter, since the lost key's tokens name the lost key's hash, whose record is gone. For the
 * keys the restored database knows as active, a generation is never lowered: a token minted from
 * such a key after the restore point is one of its current tokens (Redis may even hold the higher
 * generation a lost disabling gave it, which refuses the key's tokens from before; too much, never
 * too little), and the next rotation or disabling removes the key's record and tokens.
 */
export async function reconcileAll(pool: pg.Pool, store: AccessWriter & AccessSweep, batchSize = 1000): Promise<ReconcileReport> {
  const report: ReconcileReport = { activeKeys: 0, removedKeys: 0 };
  await removeUnknownKeys(pool, store, report);
  for (let after = 0; ;) {
    const ids = await withTransaction(pool, async (client) => {
      const locked = await client.query<{ id: number }>(NEXT_ACCOUNTS, [after, batchSize]);
      const accountIds = locked.rows.map((row) => Number(row.id));
      const records = await accessRecordsOf(client, accountIds);
      await store.putKeys(records);
      report.activeKeys += records.length;
      return accountIds;
    });
    if (ids.length < batchSize) break;
    after = ids[ids.length - 1] as number;
  }
  return report;
}
