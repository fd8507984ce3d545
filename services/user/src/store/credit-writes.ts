import { randomUUID } from 'node:crypto';
import type { Queryable } from '@platform/db';
import { BALANCE_CHANGED, type BalanceChanged } from '@platform/events';
import type { AccountChange, CreditCause, CreditEntry } from '../domain/account-change';
import { RequestIdTaken } from '../domain/account-transaction';
import { outboxRow } from './outbox';

/**
 * THE write path of credits (CONTRACT §5, §6): every change of a pool's credits — a usage batch,
 * an admin top-up or adjustment (a batch of one), an account's initial credits — writes its pool
 * rows, ledger rows, requestId answers and outbox events here (through the SQL function
 * write_credit_changes), in the caller's transaction after the caller locked the pools and
 * decided, or as a transaction of its own that checks what it was decided on. Nothing else
 * writes credit_ledger or outbox_events rows (guarded by services/user/test/credit-write-path.test.ts).
 * What must accompany such a write (the access records' credit bits, the relay's wake-up) follows
 * from the change alone (domain/account-change.ts, accessEffectOf), written by
 * store/access-records.ts (AccessEffects.write). Its one caller is the account transaction
 * (store/account-transaction.ts): `apply` in a transaction, `applyAlone` as its own.
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

/** One ledger row: the domain's credit entry, on its account's pool. */
export interface LedgerEntry extends CreditEntry {
  accountId: number;
  poolId: number;
}

export interface CreditWrites {
  pools: readonly PoolCreditsAfter[];
  /** In the order they were decided. */
  entries: readonly LedgerEntry[];
  /** `balance.changed` events, in order. */
  events: readonly BalanceChanged[];
}

/**
 * The `balance.changed` event of one pool change (CONTRACT §6). A reservation's hold or return is
 * usage to the notifier.
 */
export function balanceEvent(
  change: { accountId: number; poolId: number; previousCredits: number; credits: number },
  cause: CreditCause,
  occurredAt = new Date().toISOString(),
): BalanceChanged {
  const { accountId, poolId, previousCredits, credits } = change;
  const eventCause = cause === 'hold' || cause === 'release' ? 'usage' : cause;
  return { id: randomUUID(), type: BALANCE_CHANGED, accountId, productId: poolId, previousCredits, credits, cause: eventCause, occurredAt };
}

/**
 * An account transaction's credit changes as one write: each pool once (its credits before the
 * first change and after the last), every ledger row in order, an event per change that moved
 * credits. A pool's second event in one write (a usage batch's last debit, to 0: poolChanges) is
 * stamped a millisecond after its first, so that their occurredAt orders them as the ledger does.
 */
export function creditWritesOf(
  changes: ReadonlyArray<Extract<AccountChange, { kind: 'credits' }>>,
): CreditWrites & { pools: PoolCreditsChange[] } {
  const pools = new Map<string, PoolCreditsChange>();
  const now = Date.now();
  const events: BalanceChanged[] = [];
  const stamped = new Map<string, number>();
  for (const { accountId, poolId, previousCredits, credits, entries } of changes) {
    const key = `${accountId}:${poolId}`;
    const pool = pools.get(key);
    if (pool) pool.credits = credits;
    else pools.set(key, { accountId, poolId, previousCredits, credits });
    if (previousCredits === credits) continue;
    const offset = stamped.get(key) ?? 0;
    stamped.set(key, offset + 1);
    const at = new Date(now + offset);
    events.push(balanceEvent({ accountId, poolId, previousCredits, credits }, entries[0]?.cause ?? 'adjustment', at.toISOString()));
  }
  return {
    // In key order, as the write locks them (a nested loop over the list, the plan on a large
    // pool_balances): two writes of their own over the same pools, from two replicas, would
    // otherwise lock them in opposite orders, and Postgres ends one as a deadlock after a second.
    pools: [...pools.values()]
      .filter((pool) => pool.previousCredits !== pool.credits)
      .sort((a, b) => a.accountId - b.accountId || a.poolId - b.poolId),
    // Members named, not spread: Node 20 builds a spread object in about 90 ns against 8 ("Object
    // spreads on Node 20"), here 100 a batch; measured only with findKeys (redis-key-records.ts).
    entries: changes.flatMap(({ accountId, poolId, entries }) =>
      entries.map(({ delta, credits, cause, productId, requestId, digest }) => ({
        accountId,
        poolId,
        delta,
        credits,
        cause,
        productId,
        requestId,
        digest,
      })),
    ),
    events,
  };
}

// One round trip: the pools, the ledger rows, the requestId answers and the commit's events as one
// outbox row (one message, CONTRACT §6: outboxRow; NULLs when there are none), written by the SQL
// function write_credit_changes (migrations/20261128110000000_write_credit_changes.sql, which says
// what it does and why it is a function: its plan is kept for the session, behind a pooler too).
// A second round trip inside the batch's transaction, while it holds the pool locks, cost
// usage-many-accounts about half its rate on a loaded two-core machine.
//
// Its last two arguments: null for a write in the caller's transaction (the pools locked and
// decided); for a write that is its own transaction (no BEGIN, no COMMIT: one round trip for the
// whole batch), how many pools must still hold their previous credits (else it raises 40001 and
// nothing of it stays) and how many requestId answers it writes (all of the entries'). A
// requestId another transaction committed meanwhile fails either kind with unique_violation on
// usage_requests_pkey (migrations/20261206180000000_write_credit_answers_plain.sql).
// What it returns is not read: the write took everything, or it threw.
const WRITE = 'SELECT write_credit_changes($1::json, $2::json, $3::uuid, $4::text, $5::jsonb, $6::text, $7::int, $8::int)';

const valuesOf = ({ pools, entries, events }: CreditWrites): unknown[] =>
  // The objects as they are: json_to_recordset picks the members it names and ignores the rest.
  [JSON.stringify(entries), JSON.stringify(pools), ...(outboxRow(events) ?? [null, null, null, null])];

/**
 * Writes the change (run it on a transaction's client). Throws RequestIdTaken when another
 * transaction committed one of the entries' requestIds meanwhile: the statement failed, the
 * transaction is aborted, and the caller rolls back and decides again (nothing of this write
 * stays, its events neither).
 */
export async function writeCreditChanges(db: Queryable, writes: CreditWrites): Promise<void> {
  try {
    await db.query({ text: WRITE, values: [...valuesOf(writes), null, null] });
  } catch (error) {
    if (isRequestIdTaken(error)) throw new RequestIdTaken();
    throw error;
  }
}

/**
 * Whether Postgres ended the statement as a serialization failure (40001, which
 * raise_changed_meanwhile raises) or a deadlock (40P01: another write locked the same rows in
 * another order): it took nothing, and deciding again may pass.
 */
export function endedAsConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

/** The write found one of its requestIds committed by another transaction (and was undone whole). */
function isRequestIdTaken(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === 'usage_requests_pkey';
}

/**
 * Writes the change as one statement outside any transaction (its own), decided on a read without
 * locks or on kept credits: only if every pool in `pools` still holds its `previousCredits` and
 * every requestId is free. Returns false when one is not, or when Postgres ended it as a deadlock,
 * and then nothing was written (run it on a checked-out client, withClient: pool.query would
 * close the connection of the refused call).
 */
export async function writeCreditChangesIfUnchanged(
  db: Queryable,
  writes: CreditWrites & { pools: readonly PoolCreditsChange[] },
): Promise<boolean> {
  const answers = writes.entries.filter((entry) => entry.requestId !== null).length;
  try {
    await db.query({ text: WRITE, values: [...valuesOf(writes), writes.pools.length, answers] });
    return true;
  } catch (error) {
    if (endedAsConflict(error) || isRequestIdTaken(error)) return false;
    throw error;
  }
}
