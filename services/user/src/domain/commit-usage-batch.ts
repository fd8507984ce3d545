import { AppError } from '@platform/wire';
import { poolKey, type PoolKey, type UsageBatchStore } from './usage-batch-store';
import { balancesByAccount, type AccountBalances, type BalanceCommitHook } from './balance-commit-hook';
import { decideBatch, type Debit, type DebitOutcome } from './usage-batch';

/** Seconds a client should wait after a batch failed for a reason that passes. */
const RETRY_AFTER_SECONDS = 1;
/** Decisions taken again when another transaction took one of the batch's requestIds meanwhile. */
const ATTEMPTS = 3;

/** Another replica committed one of this batch's requestIds after the batch read them: decide again. */
class RequestIdTaken extends Error {}

function poolsOf(debits: readonly Debit[]): PoolKey[] {
  const pools = new Map<string, PoolKey>();
  for (const { accountId, poolId } of debits) pools.set(poolKey(accountId, poolId), { accountId, poolId });
  return [...pools.values()];
}

/**
 * One batch, one commit: alone (withoutTransaction below) when it needs no transaction, else in
 * its transaction: lock the batch's pools and read the answers its requestIds already have (one
 * statement), decide every debit in order, write the pools, ledger rows, answers and events (one
 * statement), run the balance hook, commit. The outcomes are returned only after the commit: a
 * 200 means the debit is committed (CONTRACT §9).
 *
 * A requestId that another transaction committed after the batch read the answers (another
 * replica's copy of the same request, on a pool whose lock this batch waited for) cannot be
 * taken by the write: the batch rolls back and decides again, and then sees that answer.
 */
export function createBatchCommit(store: UsageBatchStore, hook: BalanceCommitHook): (debits: Debit[]) => Promise<DebitOutcome[]> {
  /**
   * Most batches change no pool to or from 0, so nothing must happen inside their transaction:
   * they are read without locks and written as one statement that is its own transaction, and
   * that writes only if nothing it was decided on has changed (two round trips instead of BEGIN,
   * lock and read, write, COMMIT; no pool lock held while the service decides). Undefined when
   * the batch needs the transaction, or when something changed meanwhile: then it takes the
   * locked path, which decides again.
   */
  const withoutTransaction = async (debits: Debit[]): Promise<DebitOutcome[] | undefined> => {
    const { credits, known } = await store.read(
      poolsOf(debits),
      debits.map((debit) => debit.requestId),
    );
    const decision = decideBatch(debits, credits, known);
    const accounts = balancesByAccount(decision.balances);
    if (hook.needsTransaction(accounts)) return undefined;
    if (decision.grants.length > 0 && !(await store.writeIfUnchanged(decision))) return undefined;
    await hook.committedAlone(accounts);
    return decision.outcomes;
  };

  const attempt = async (debits: Debit[]): Promise<DebitOutcome[]> => {
    let hooked: AccountBalances[] | undefined;
    const effects = hook.begin();
    let outcomes: DebitOutcome[];
    try {
      outcomes = await store.transaction(async (tx) => {
        const { credits, known } = await tx.lockAndRead(
          poolsOf(debits),
          debits.map((debit) => debit.requestId),
        );
        const decision = decideBatch(debits, credits, known);
        if (decision.grants.length > 0 && (await tx.write(decision)) < decision.grants.length) throw new RequestIdTaken();
        if (decision.balances.length > 0) {
          hooked = balancesByAccount(decision.balances);
          try {
            await effects.beforeCommit(hooked, { accountPools: (ids) => tx.accountPools(ids), activeKeys: (id) => tx.activeKeys(id) });
          } catch (error) {
            throw new AppError('unavailable', { retryAfterSeconds: RETRY_AFTER_SECONDS, cause: error });
          }
        }
        return decision.outcomes;
      });
    } catch (error) {
      if (hooked) await effects.afterRollback(hooked);
      throw error;
    }
    if (hooked) await effects.afterCommit(hooked);
    return outcomes;
  };

  return async (debits) => {
    const outcomes = await withoutTransaction(debits);
    if (outcomes) return outcomes;
    for (let round = 1; ; round += 1) {
      try {
        return await attempt(debits);
      } catch (error) {
        if (!(error instanceof RequestIdTaken)) throw error;
        if (round >= ATTEMPTS) throw new AppError('unavailable', { retryAfterSeconds: RETRY_AFTER_SECONDS, cause: error });
      }
    }
  };
}
