import type pg from 'pg';
import type { Queryable } from '@platform/db';
import { poolKey, type PoolKey, type PoolsAndAnswers, type UsageReads } from '../domain/usage-reads';

// ORDER BY before FOR UPDATE: the rows are locked in key order, the one order every batch
// uses. The pools come first, then the kept answers (kind 'a'). Without the lock: the read of a
// batch that commits without a transaction (writeCreditChangesIfUnchanged checks it at the write).
const readPoolsAndAnswers = (lock: boolean): string => `
WITH pools AS (
  SELECT b.account_id, b.pool_id, b.credits
    FROM pool_balances b
    JOIN unnest($1::int[], $2::int[]) AS k(account_id, pool_id) ON b.account_id = k.account_id AND b.pool_id = k.pool_id${
      lock
        ? `
   ORDER BY b.account_id, b.pool_id
     FOR UPDATE OF b`
        : ''
    }
)
SELECT 'p' AS kind, account_id, pool_id, credits, NULL AS request_id, NULL AS request_digest, NULL::int AS product_id FROM pools
UNION ALL
SELECT 'a', account_id, NULL, credits, request_id, request_digest, product_id FROM usage_requests WHERE request_id = ANY($3::text[])`;
const LOCK_AND_READ = readPoolsAndAnswers(true);
const READ = readPoolsAndAnswers(false);

interface LockAndReadRow {
  kind: 'p' | 'a';
  account_id: number;
  pool_id: number | null;
  credits: number;
  request_id: string | null;
  request_digest: string | null;
  product_id: number | null;
}

async function readPools(db: Queryable, text: string, keys: readonly PoolKey[], requestIds: readonly string[]): Promise<PoolsAndAnswers> {
  const result = await db.query<LockAndReadRow>({
    text,
    values: [keys.map((key) => key.accountId), keys.map((key) => key.poolId), requestIds],
  });
  const credits = new Map<string, number>();
  const known: PoolsAndAnswers['known'] = new Map();
  for (const row of result.rows) {
    if (row.kind === 'p') credits.set(poolKey(row.account_id, row.pool_id as number), Number(row.credits));
    else {
      known.set(row.request_id as string, {
        digest: row.request_digest as string,
        accountId: row.account_id,
        productId: row.product_id as number,
        credits: Number(row.credits),
      });
    }
  }
  return { credits, known };
}

/** A usage batch's read in its account transaction: the pools locked (in key order) and read with the kept answers, one round trip. */
export const lockPoolsAndAnswers = (db: Queryable, keys: readonly PoolKey[], requestIds: readonly string[]): Promise<PoolsAndAnswers> =>
  readPools(db, LOCK_AND_READ, keys, requestIds);

/** The same read without a transaction and without locks (a batch written alone: AccountTransactions.applyAlone). */
export function createUsageReads(pool: pg.Pool): UsageReads {
  return { read: (keys, requestIds) => readPools(pool, READ, keys, requestIds) };
}
