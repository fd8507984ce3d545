import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { activeKeysForUpdate } from '@platform/accounts';
import { currentTraceparent } from '@platform/runtime';
import { withTransaction, type Queryable } from '@platform/db';
import { BALANCE_CHANGED, type BalanceChanged } from '@platform/events';
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

// ORDER BY before FOR UPDATE: the rows are locked in key order, the one order every batch
// uses. The pools come first, then the kept answers (kind 'a').
const LOCK_AND_READ = `
WITH locked AS (
  SELECT b.account_id, b.pool_id, b.credits
    FROM pool_balances b
    JOIN unnest($1::int[], $2::int[]) AS k(account_id, pool_id) ON b.account_id = k.account_id AND b.pool_id = k.pool_id
   ORDER BY b.account_id, b.pool_id
     FOR UPDATE OF b
)
SELECT 'p' AS kind, account_id, pool_id, credits, NULL AS request_id, NULL AS request_digest, NULL::int AS product_id FROM locked
UNION ALL
SELECT 'a', account_id, NULL, credits, request_id, request_digest, product_id FROM usage_requests WHERE request_id = ANY($3::text[])`;

// One round trip for every write of the batch. The grants, pools and events travel as three
// JSON documents (serialized natively by JSON.stringify, parsed once by Postgres) instead of a
// dozen arrays that the driver would escape element by element. The ledger rows keep the order
// of the decisions; the requestIds are taken in key order (as the pools are locked in key
// order); a requestId another open transaction holds waits for it and is then skipped (DO
// NOTHING) if that transaction committed it.
const WRITE = `
WITH grants AS (
  SELECT *
    FROM ROWS FROM (json_to_recordset($1::json) AS ("accountId" int, "poolId" int, "productId" int, units bigint,
                                                    credits bigint, "requestId" text, digest text))
         WITH ORDINALITY AS g(account_id, pool_id, product_id, units, credits, request_id, digest, n)
), pools AS (
  UPDATE pool_balances b SET credits = v.credits, updated_at = now()
    FROM json_to_recordset($2::json) AS v("accountId" int, "poolId" int, credits bigint)
   WHERE b.account_id = v."accountId" AND b.pool_id = v."poolId"
), ledger AS (
  INSERT INTO credit_ledger (account_id, pool_id, delta, credits_after, cause, request_id, product_id)
  SELECT account_id, pool_id, -units, credits, 'usage', request_id, product_id FROM grants ORDER BY n
), events AS (
  INSERT INTO outbox_events (id, routing_key, payload, traceparent)
  SELECT (e.payload->>'id')::uuid, $3, e.payload, $5 FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS e(payload, n) ORDER BY n
)
INSERT INTO usage_requests (request_id, account_id, request_digest, product_id, credits)
SELECT request_id, account_id, digest, product_id, credits FROM grants ORDER BY request_id
ON CONFLICT (request_id) DO NOTHING`;

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

async function lockAndRead(
  db: Queryable,
  keys: readonly PoolKey[],
  requestIds: readonly string[],
): Promise<{ credits: Map<string, number>; known: Map<string, StoredAnswer> }> {
  const result = await db.query<LockAndReadRow>({
    text: LOCK_AND_READ,
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

function eventOf(change: PoolBalance, occurredAt: string): BalanceChanged {
  return {
    id: randomUUID(),
    type: BALANCE_CHANGED,
    accountId: change.accountId,
    productId: change.poolId,
    previousCredits: change.previousCredits,
    credits: change.credits,
    cause: 'usage',
    occurredAt,
  };
}

// A pool's second event in one batch (the last debit's, to 0) is stamped a millisecond after
// its first, so that a notifier that gets them out of order sees the older one as stale.
function eventsOf(changes: readonly PoolBalance[]): BalanceChanged[] {
  const now = Date.now();
  const seen = new Map<string, number>();
  return changes.map((change) => {
    const key = poolKey(change.accountId, change.poolId);
    const offset = seen.get(key) ?? 0;
    seen.set(key, offset + 1);
    return eventOf(change, new Date(now + offset).toISOString());
  });
}

async function write(db: Queryable, { pools, grants, changes }: BatchWrites): Promise<number> {
  const result = await db.query({
    text: WRITE,
    // The objects as they are: json_to_recordset picks the members it names and ignores the rest.
    values: [JSON.stringify(grants), JSON.stringify(pools), BALANCE_CHANGED, JSON.stringify(eventsOf(changes)), currentTraceparent()],
  });
  return result.rowCount ?? 0;
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
    lockAndRead: (keys, requestIds) => lockAndRead(db, keys, requestIds),
    write: (writes) => write(db, writes),
    accountPools: (accountIds) => accountPools(db, accountIds),
    activeKeys: (accountId) => activeKeysForUpdate(db, accountId),
  };
}

const isRetryable = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === DEADLOCK || code === SERIALIZATION;
};

export function createUsageBatchStore(pool: pg.Pool): UsageBatchStore {
  return {
    async transaction(fn) {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await withTransaction(pool, (client) => fn(bind(client)));
        } catch (error) {
          if (attempt >= ATTEMPTS || !isRetryable(error)) throw error;
        }
      }
    },
  };
}
