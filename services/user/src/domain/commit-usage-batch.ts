import { AppError, unavailable } from '@platform/wire';
import { KEPT_POOLS, keptCredits } from '../speed';
import { accessEffectOf } from './account-change';
import { RequestIdTaken, type AccountTransactions } from './account-transaction';
import { poolKey, type PoolBalance, type PoolKey, type StoredAnswer, type UsageReads } from './usage-reads';
import { decideBatch, type BatchDecision, type Debit, type DebitOutcome } from './usage-batch';

/** A batch decided on kept credits knows no kept answers: the write finds a requestId taken. */
const NO_ANSWERS: ReadonlyMap<string, StoredAnswer> = new Map();

/** Seconds a client should wait after a batch failed for a reason that passes. */
const RETRY_AFTER_SECONDS = 1;
/** Decisions taken again when another transaction took one of the batch's requestIds meanwhile. */
const ATTEMPTS = 3;

/** A batch written alone: its outcomes, or why it was not written. */
type AloneCommit = DebitOutcome[] | 'needs transaction' | 'changed';

/** The outcomes of a batch written alone; undefined when it was not (it commits in a transaction). */
const outcomesOf = (committed: AloneCommit): DebitOutcome[] | undefined => (Array.isArray(committed) ? committed : undefined);

function poolsOf(debits: readonly Debit[]): PoolKey[] {
  const pools = new Map<string, PoolKey>();
  for (const { accountId, poolId } of debits) pools.set(poolKey(accountId, poolId), { accountId, poolId });
  return [...pools.values()];
}

/** What a batch commit runs on: the unlocked read, and the one account transaction (on the usage connections). */
export interface UsageCommitPorts {
  reads: UsageReads;
  accounts: AccountTransactions;
}

/**
 * One batch, one commit, through the one account transaction: its debits are credit changes
 * with cause `usage` (decideBatch). Alone (withoutTransaction below) when no change of it closes
 * or opens access, else in a `usage` transaction: lock the batch's pools and read the answers
 * its requestIds already have (one statement), decide every debit in order, apply the changes
 * (pools, ledger rows, answers, events: one statement; a pool taken to 0 loses its credit bit
 * before the commit, accessEffectOf), commit. The outcomes are returned only after the commit: a
 * 200 means the debit is committed (CONTRACT §9).
 *
 * A requestId that another transaction committed after the batch read the answers (another
 * replica's copy of the same request, on a pool whose lock this batch waited for) cannot be
 * taken by the write (RequestIdTaken): the batch rolls back and decides again, and then sees that answer.
 *
 * `alone: false` (bench/usage-statements.ts): every batch in its transaction.
 */
export function createBatchCommit(
  { reads, accounts }: UsageCommitPorts,
  options: { keptPools?: number; now?: () => number; alone?: boolean } = {},
): (debits: Debit[]) => Promise<DebitOutcome[]> {
  const kept = keptCredits(options.keptPools ?? KEPT_POOLS, options.now ?? Date.now, poolKey);

  /**
   * Most batches change no pool to or from 0, so nothing must happen inside their transaction:
   * they are written as one statement that is its own transaction, and that writes only if
   * nothing it was decided on has changed (no pool lock held while the service decides). They are
   * decided on the credits this process last read or wrote for their pools, when it knows every
   * one of them, and else on a read without locks. A batch decided on kept credits is trusted
   * only if it grants every debit (a refusal needs credits read now: a top-up elsewhere may have
   * come meanwhile) and only once its write found every pool as kept and every requestId free;
   * otherwise it is decided again on a read, and its pools are read first for a while
   * (DISTRUST_MS). Undefined when the batch needs the transaction, or when something changed
   * after the read: then it takes the locked path, which decides again.
   */
  const withoutTransaction = async (debits: Debit[]): Promise<DebitOutcome[] | undefined> => {
    const pools = poolsOf(debits);
    const credits = kept.all(pools);
    if (credits) {
      const decision = decideBatch(debits, credits, NO_ANSWERS);
      if (decision.granted === debits.length) {
        const committed = await commitAlone(decision);
        if (committed !== 'changed') return outcomesOf(committed);
      }
    }
    const read = await reads.read(
      pools,
      debits.map((debit) => debit.requestId),
    );
    return outcomesOf(await commitAlone(decideBatch(debits, read.credits, read.known)));
  };

  /** Writes a decided batch alone: its outcomes, or why it was not written. */
  const commitAlone = async (decision: BatchDecision): Promise<AloneCommit> => {
    if (decision.changes.some((change) => accessEffectOf(change) !== 'none')) return 'needs transaction';
    if (decision.changes.length > 0 && !(await accounts.applyAlone(decision.changes))) {
      kept.distrust(decision.balances);
      return 'changed';
    }
    kept.remember(decision.balances);
    return decision.outcomes;
  };

  const attempt = async (debits: Debit[]): Promise<DebitOutcome[]> => {
    let balances: PoolBalance[] = [];
    let outcomes: DebitOutcome[];
    try {
      outcomes = await accounts.transaction('usage', async (tx) => {
        const { credits, known } = await tx.lockPoolsAndAnswers(
          poolsOf(debits),
          debits.map((debit) => debit.requestId),
        );
        const decision = decideBatch(debits, credits, known);
        balances = decision.balances;
        if (decision.changes.length > 0) await tx.apply(decision.changes);
        return decision.outcomes;
      });
    } catch (error) {
      kept.forget(poolsOf(debits));
      // The access store refused a closing write: the batch rolled back; a retry soon may pass.
      if (error instanceof AppError && error.code === 'unavailable') throw unavailable(error, RETRY_AFTER_SECONDS);
      throw error;
    }
    kept.remember(balances);
    return outcomes;
  };

  return async (debits) => {
    const outcomes = options.alone === false ? undefined : await withoutTransaction(debits);
    if (outcomes) return outcomes;
    for (let round = 1; ; round += 1) {
      try {
        return await attempt(debits);
      } catch (error) {
        if (!(error instanceof RequestIdTaken)) throw error;
        if (round >= ATTEMPTS) throw unavailable(error, RETRY_AFTER_SECONDS);
      }
    }
  };
}
