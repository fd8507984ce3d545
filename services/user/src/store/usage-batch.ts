import type pg from 'pg';
import { activeKeysForUpdate } from '@platform/accounts';
import { withClient, withTransaction, type Queryable } from '@platform/db';
import type { BalanceChanged } from '@platform/events';
import {
  poolKey,
  type BatchWrites,
  type PoolBalance,
  type PoolKey,
  type StoredAnswer,
  type UsageBatchQueries,
  type UsageBatchStore,
} from '../domain/usage-batch-store';
import type { PoolCredits } from '../domain/user-store';
import { NO_PAUSES, type Pauses } from '../pause-point';
import type { TestFault } from '../test-fault';
import { balanceEvent, writeCreditChanges, writeCreditChangesIfUnchanged, type CreditWrites } from './credit-writes';

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

const ACCOUNT_POOLS = 'SELECT account_id, pool_id, credits FROM pool_balances WHERE account_id = ANY($1::int[])';

const DEADLOCK = '40P01';
const SERIALIZATION = '40001';
const ATTEMPTS = 3;

interface LockAndReadRow {
  kind: 'p' | 'a';
  account_id: number;
  pool_id: number | null;
  credits: number;
  request_id: string | null;
  request_digest: string | null;
  product_id: number | null;
}

async function readPools(
  db: Queryable,
  text: string,
  keys: readonly PoolKey[],
  requestIds: readonly string[],
): Promise<{ credits: Map<string, number>; known: Map<string, StoredAnswer> }> {
  const result = await db.query<LockAndReadRow>({
    text,
    values: [keys.map((key) => key.accountId), keys.map((key) => key.poolId), requestIds],
  });
  const credits = new Map<string, number>();
  const known = new Map<string, StoredAnswer>();
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

// A pool's second event in one batch (the last debit's, to 0) is stamped a millisecond after
// its first, so that their occurredAt orders them as the ledger does.
function eventsOf(changes: readonly PoolBalance[]): BalanceChanged[] {
  const now = Date.now();
  const seen = new Map<string, number>();
  return changes.map((change) => {
    const key = poolKey(change.accountId, change.poolId);
    const offset = seen.get(key) ?? 0;
    seen.set(key, offset + 1);
    return balanceEvent(change, 'usage', new Date(now + offset).toISOString());
  });
}

/** The batch as the one credit write path takes it: a ledger row and an answer per grant, the events. */
function creditWrites({ pools, grants, changes }: BatchWrites): CreditWrites & { pools: readonly PoolBalance[] } {
  return {
    pools,
    entries: grants.map((grant) => ({
      accountId: grant.accountId,
      poolId: grant.poolId,
      productId: grant.productId,
      delta: -grant.units,
      credits: grant.credits,
      cause: 'usage' as const,
      requestId: grant.requestId,
      digest: grant.digest,
    })),
    events: eventsOf(changes),
  };
}

async function accountPools(db: Queryable, accountIds: readonly number[]): Promise<Map<number, PoolCredits[]>> {
  const result = await db.query<{ account_id: number; pool_id: number; credits: number }>(ACCOUNT_POOLS, [accountIds]);
  const pools = new Map<number, PoolCredits[]>();
  for (const row of result.rows) {
    const held = pools.get(row.account_id) ?? [];
    held.push({ poolId: row.pool_id, credits: Number(row.credits) });
    pools.set(row.account_id, held);
  }
  return pools;
}

function bind(db: Queryable): UsageBatchQueries {
  return {
    lockAndRead: (keys, requestIds) => readPools(db, LOCK_AND_READ, keys, requestIds),
    write: (writes) => writeCreditChanges(db, creditWrites(writes)),
    accountPools: (accountIds) => accountPools(db, accountIds),
    activeKeys: (accountId) => activeKeysForUpdate(db, accountId),
  };
}

const isRetryable = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === DEADLOCK || code === SERIALIZATION;
};

/**
 * `pause`: test-only (TEST_PAUSE_AT `usage-after-commit`: a batch committed, its debits not
 * answered); `fault`: test-only (TEST_FAULT `usage-answer-without-commit`: a batch answered, not written).
 */
export function createUsageBatchStore(pool: pg.Pool, pauses: Pauses = NO_PAUSES, fault?: TestFault): UsageBatchStore {
  return {
    read: (keys, requestIds) => readPools(pool, READ, keys, requestIds),
    async writeIfUnchanged(writes) {
      if (fault?.('usage-answer-without-commit')) return true;
      // On a client of its own: a write that found something changed must not cost the connection.
      const written = await withClient(pool, (client) => writeCreditChangesIfUnchanged(client, creditWrites(writes)));
      if (written) await pauses.at('usage-after-commit');
      return written;
    },
    async transaction(fn) {
      for (let attempt = 1; ; attempt += 1) {
        try {
          const result = await withTransaction(pool, (client) => fn(bind(client)));
          await pauses.at('usage-after-commit');
          return result;
        } catch (error) {
          if (attempt >= ATTEMPTS || !isRetryable(error)) throw error;
        }
      }
    },
  };
}
