import type { PoolBalance } from './usage-batch-store';
import type { PoolCredits } from './user-store';

/** The pools of one account that a usage batch decided on, with their credits before and after it. */
export interface AccountBalances {
  accountId: number;
  /** `previousCredits === credits` for a pool the batch did not change (every debit refused or replayed). */
  pools: readonly PoolBalance[];
}

/** Reads inside the batch's transaction (the embedded quickstart has one connection: a hook must not take another). */
export interface BatchReads {
  /** Every pool the accounts hold, with its credits as this transaction sees them (the batch's own pools in their new state). */
  accountPools(accountIds: readonly number[]): Promise<Map<number, PoolCredits[]>>;
  /** The account's active key hashes, its row held FOR SHARE until the batch ends (pool rows are locked first). */
  activeKeys(accountId: number): Promise<string[]>;
}

/**
 * The one place where something must happen around a usage batch's commit. `begin()` is called
 * once per transaction attempt, and its side effects run as follows:
 * - `beforeCommit` runs inside the batch's transaction, after the pool rows are locked and every
 *   write of the batch is done, with the resulting credits of every pool the batch decided on,
 *   per account. The batch commits only when it resolves. When it throws, the batch rolls back
 *   and every request in it is answered 503 (retry later; a retry with the same requestId is
 *   safe). The pool rows stay locked while it runs, so it sees each pool in its final state for
 *   this batch; other pools of the account are not locked (`reads.accountPools` shows their last
 *   committed credits). Keep it short: every debit of these pools waits for it.
 * - `afterCommit` runs after the COMMIT, before the debits are answered; `afterRollback` after a
 *   rollback (its commit failed, say) once `beforeCommit` had begun, to undo what it wrote.
 *
 * It keeps the access records' credit bits in step with Postgres (CONTRACT §3: a pool that the
 * batch emptied is marked empty in Redis before the debit that emptied it answers).
 */
export interface BalanceCommitHook {
  /**
   * Whether `beforeCommit` has anything to write for these balances. When it has not, a batch
   * may commit as one statement without a transaction of its own (no locks held across round
   * trips), and then only `committedAlone` runs.
   */
  needsTransaction(accounts: readonly AccountBalances[]): boolean;
  begin(): BatchSideEffects;
  /** After a batch for which `needsTransaction` was false committed (as one statement), before its debits are answered. */
  committedAlone(accounts: readonly AccountBalances[]): Promise<void>;
}

export interface BatchSideEffects {
  beforeCommit(accounts: readonly AccountBalances[], reads: BatchReads): Promise<void>;
  afterCommit(accounts: readonly AccountBalances[]): Promise<void>;
  afterRollback(accounts: readonly AccountBalances[]): Promise<void>;
}

/** The batch's balances grouped by account (accounts and pools in key order). */
export function balancesByAccount(balances: readonly PoolBalance[]): AccountBalances[] {
  const byAccount = new Map<number, PoolBalance[]>();
  for (const balance of [...balances].sort((a, b) => a.accountId - b.accountId || a.poolId - b.poolId)) {
    const pools = byAccount.get(balance.accountId);
    if (pools) pools.push(balance);
    else byAccount.set(balance.accountId, [balance]);
  }
  return [...byAccount].map(([accountId, pools]) => ({ accountId, pools }));
}
