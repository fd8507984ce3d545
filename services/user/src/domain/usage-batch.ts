import { decideCredits } from './account-change';
import { poolKey, type BatchWrites, type Grant, type GrantedAnswer, type PoolBalance, type StoredAnswer } from './usage-batch-store';

/** One debit waiting for its batch: who pays, from which pool, how much, under which requestId. */
export interface Debit {
  requestId: string;
  /** Digest of credential, product and units: a replay must match it (else 409). */
  digest: string;
  accountId: number;
  poolId: number;
  productId: number;
  units: number;
}

/** What a batch decided for one debit. */
export type DebitOutcome =
  | { kind: 'granted'; answer: GrantedAnswer }
  /** The requestId already had this answer (a replay): nothing was debited again. */
  | { kind: 'replayed'; answer: GrantedAnswer }
  | { kind: 'exhausted' }
  /** The requestId already had an answer for another request. */
  | { kind: 'conflict' };

export interface BatchDecision extends BatchWrites {
  /** One per debit, in the debits' order. */
  outcomes: DebitOutcome[];
  /** Every pool the batch asked about that the account holds, with its credits before and after. */
  balances: PoolBalance[];
}

/**
 * The `balance.changed` events of one pool's granted debits (credits after each, in order,
 * starting from `previous`). One event for the whole run, except that a run ending at 0 after
 * more than one debit ends with the last debit's own event: a notifier that sees previous → 0
 * alone cannot tell that the pool passed through the low band on the way, and the contract's
 * alerts depend on it (a low alert when some step lands in (0, threshold), then the zero alert).
 */
export function poolChanges(accountId: number, poolId: number, previous: number, after: readonly number[]): PoolBalance[] {
  const last = after[after.length - 1];
  if (last === undefined) return [];
  const beforeLast = after[after.length - 2];
  if (last > 0 || beforeLast === undefined) return [{ accountId, poolId, previousCredits: previous, credits: last }];
  return [
    { accountId, poolId, previousCredits: previous, credits: beforeLast },
    { accountId, poolId, previousCredits: beforeLast, credits: last },
  ];
}

interface PoolRun {
  accountId: number;
  poolId: number;
  previous: number;
  credits: number;
  after: number[];
}

/**
 * Decides a batch in arrival order (CONTRACT §5, §9): a requestId that already has an answer is
 * a replay (same digest) or a conflict; any other debit is granted while its pool's credits
 * last and exhausted after that, or when the account does not hold the pool. Pure: `credits`
 * are the locked pools' credits (absent: not held), `known` the kept answers. Every requestId
 * in `debits` must be distinct.
 */
export function decideBatch(
  debits: readonly Debit[],
  credits: ReadonlyMap<string, number>,
  known: ReadonlyMap<string, StoredAnswer>,
): BatchDecision {
  const runs = new Map<string, PoolRun>();
  const grants: Grant[] = [];
  const outcomes = debits.map((debit): DebitOutcome => {
    const stored = known.get(debit.requestId);
    if (stored) {
      if (stored.digest !== debit.digest) return { kind: 'conflict' };
      return { kind: 'replayed', answer: { accountId: stored.accountId, productId: stored.productId, credits: stored.credits } };
    }
    const key = poolKey(debit.accountId, debit.poolId);
    let run = runs.get(key);
    const held = credits.get(key);
    if (!run && held !== undefined) {
      run = { accountId: debit.accountId, poolId: debit.poolId, previous: held, credits: held, after: [] };
      runs.set(key, run);
    }
    const decided = decideCredits(run?.credits, { cause: 'usage', units: debit.units });
    if (!run || !decided.ok) return { kind: 'exhausted' };
    run.credits = decided.credits;
    run.after.push(run.credits);
    const answer: GrantedAnswer = { accountId: debit.accountId, productId: debit.productId, credits: run.credits };
    grants.push({
      accountId: debit.accountId,
      productId: debit.productId,
      credits: run.credits,
      requestId: debit.requestId,
      digest: debit.digest,
      poolId: debit.poolId,
      units: debit.units,
    });
    return { kind: 'granted', answer };
  });
  const balances = [...runs.values()].map((run) => ({
    accountId: run.accountId,
    poolId: run.poolId,
    previousCredits: run.previous,
    credits: run.credits,
  }));
  return {
    outcomes,
    grants,
    balances,
    pools: balances.filter((balance) => balance.credits !== balance.previousCredits),
    changes: [...runs.values()].flatMap((run) => poolChanges(run.accountId, run.poolId, run.previous, run.after)),
  };
}
