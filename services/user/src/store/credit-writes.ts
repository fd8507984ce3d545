import type { Queryable } from '@platform/db';
import type { BalanceChanged } from '@platform/events';
import { outboxRow } from './outbox';

/**
 * THE write path of credits (CONTRACT §5, §6): every change of a pool's credits — a usage batch,
 * an admin top-up or adjustment (a batch of one), an account's initial credits — writes its pool
 * rows, ledger rows, requestId answers and outbox events here, in the caller's transaction, after
 * the caller locked the pools and decided. No other file writes credit_ledger or outbox_events
 * rows (guarded by services/user/test/credit-write-path.test.ts). What must accompany such a
 * write (the access records' credit bits, the relay's wake-up) is declared once beside the
 * transaction: store/credit-effects.ts.
 */

/** A pool's credits after the change. */
export interface PoolCreditsAfter {
  accountId: number;
  poolId: number;
  credits: number;
}

/** A pool's credits before and after the change. */
export interface PoolCreditsChange extends PoolCreditsAfter {
  previousCredits: number;
}

/** One ledger row; a usage debit also keeps its answer under its requestId. */
export interface LedgerEntry {
  accountId: number;
  poolId: number;
  delta: number;
  /** Credits left in the pool after this entry. */
  credits: number;
  cause: 'usage' | 'top-up' | 'adjustment';
  /** The usage debit's product; null for admin changes. */
  productId: number | null;
  /** The usage debit's requestId and request digest; null for admin changes. */
  requestId: string | null;
  digest: string | null;
}

export interface CreditWrites {
  pools: readonly PoolCreditsAfter[];
  /** In the order they were decided. */
  entries: readonly LedgerEntry[];
  /** `balance.changed` events, in order. */
  events: readonly BalanceChanged[];
}

// One round trip for the pools, the ledger rows, the requestId answers and the commit's events as
// one outbox row (one message, CONTRACT §6: outboxRow; NULLs when there are none; a second round
// trip inside the batch's transaction, while it holds the pool locks, cost usage-many-accounts
// about half its rate on a loaded two-core machine). The entries and pools
// travel as two JSON documents (serialized natively by JSON.stringify, parsed once by Postgres)
// instead of a dozen arrays that the driver would escape element by element. The ledger rows
// keep the order of the decisions; the requestIds are taken in key order (as the pools are locked
// in key order); a requestId another open transaction holds waits for it and is then skipped (DO
// NOTHING) if that transaction committed it.
//
// `ifUnchanged`: the statement is its own transaction (no BEGIN, no COMMIT: one round trip for
// the whole batch) and writes only what its caller decided on a read without locks. A pool is
// updated only if it still holds `previousCredits` (the UPDATE waits for a transaction that holds
// the row, then checks the row as that one left it), and every requestId must be taken; when
// either falls short, raise_changed_meanwhile fails the statement (40001) and nothing of it stays.
const write = (ifUnchanged: boolean): string => `
WITH entries AS (
  SELECT *
    FROM ROWS FROM (json_to_recordset($1::json) AS ("accountId" int, "poolId" int, "productId" int, delta bigint,
                                                    credits bigint, cause text, "requestId" text, digest text))
         WITH ORDINALITY AS g(account_id, pool_id, product_id, delta, credits, cause, request_id, digest, n)
), pools AS (
  UPDATE pool_balances b SET credits = v.credits, updated_at = now()
    FROM json_to_recordset($2::json) AS v("accountId" int, "poolId" int, "previousCredits" bigint, credits bigint)
   WHERE b.account_id = v."accountId" AND b.pool_id = v."poolId"${ifUnchanged ? ' AND b.credits = v."previousCredits"' : ''}
  RETURNING 1
), ledger AS (
  INSERT INTO credit_ledger (account_id, pool_id, delta, credits_after, cause, request_id, product_id)
  SELECT account_id, pool_id, delta, credits, cause, request_id, product_id FROM entries ORDER BY n
), message AS (
  INSERT INTO outbox_events (id, routing_key, payload, traceparent)
  SELECT $3::uuid, $4::text, $5::jsonb, $6::text WHERE $3::uuid IS NOT NULL
), answers AS (
  INSERT INTO usage_requests (request_id, account_id, request_digest, product_id, credits)
  SELECT request_id, account_id, digest, product_id, credits FROM entries WHERE request_id IS NOT NULL ORDER BY request_id
  ON CONFLICT (request_id) DO NOTHING
  RETURNING 1
), taken AS (
  SELECT (SELECT count(*) FROM pools)::int AS pools, (SELECT count(*) FROM answers)::int AS answers
)
SELECT ${ifUnchanged ? "CASE WHEN pools = $7 AND answers = $8 THEN answers ELSE raise_changed_meanwhile('a pool or a requestId') END AS answers" : 'answers'}
  FROM taken`;
const WRITE = write(false);
const WRITE_IF_UNCHANGED = write(true);

const valuesOf = ({ pools, entries, events }: CreditWrites): unknown[] =>
  // The objects as they are: json_to_recordset picks the members it names and ignores the rest.
  [JSON.stringify(entries), JSON.stringify(pools), ...(outboxRow(events) ?? [null, null, null, null])];

/**
 * Writes the change (run it on a transaction's client). Returns how many of the entries'
 * requestIds it could take: fewer than were given means another transaction took some meanwhile
 * (the caller rolls back and decides again: nothing of this write stays, its events neither).
 */
export async function writeCreditChanges(db: Queryable, writes: CreditWrites): Promise<number> {
  const result = await db.query<{ answers: number }>({ text: WRITE, values: valuesOf(writes) });
  return result.rows[0]?.answers ?? 0;
}

/** Postgres's code for a serialization failure, which raise_changed_meanwhile raises. */
const CHANGED_MEANWHILE = '40001';

/**
 * Writes the change as one statement outside any transaction (its own), decided on a read without
 * locks: only if every pool in `pools` still holds its `previousCredits` and every requestId is
 * free. Returns false when one is not, and then nothing was written.
 */
export async function writeCreditChangesIfUnchanged(
  db: Queryable,
  writes: CreditWrites & { pools: readonly PoolCreditsChange[] },
): Promise<boolean> {
  const answers = writes.entries.filter((entry) => entry.requestId !== null).length;
  try {
    await db.query({ text: WRITE_IF_UNCHANGED, values: [...valuesOf(writes), writes.pools.length, answers] });
    return true;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === CHANGED_MEANWHILE) return false;
    throw error;
  }
}
