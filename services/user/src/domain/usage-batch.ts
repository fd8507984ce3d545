import { decideCredits, type AccountChange, type CreditEntry } from './account-change';
import { poolKey, type GrantedAnswer, type PoolBalance, type StoredAnswer } from './usage-reads';

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

export interface BatchDecision {
  /** One per debit, in the debits' order. */
  outcomes: DebitOutcome[];
  /** How many debits were granted. */
  granted: number;
  /** Every pool the batch asked about that the account holds, with its credits before and after. */
  balances: PoolBalance[];
  /**
   * What the batch writes, as account changes (cause `usage`): per pool that granted a debit, its
   * steps (poolChanges), each with the ledger rows and requestId answers of its debits.
   */
  changes: AccountChange[];
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
  /** One per granted debit, in order (its credits after it are `after`'s). */
  entries: CreditEntry[];
}

/** A run's credit changes: its steps as poolChanges cuts them, each with the ledger rows of its debits. */
function changesOf(run: PoolRun): AccountChange[] {
  const steps = poolChanges(run.accountId, run.poolId, run.previous, run.after);
  const cut = steps.length === 2 ? run.entries.length - 1 : run.entries.length;
  return steps.map((step, index) => ({
    kind: 'credits',
    ...step,
    entries: index === 0 ? run.entries.slice(0, cut) : run.entries.slice(cut),
  }));
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
  let granted = 0;
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
      run = { accountId: debit.accountId, poolId: debit.poolId, previous: held, credits: held, after: [], entries: [] };
      runs.set(key, run);
    }
    const decided = decideCredits(run?.credits, { cause: 'usage', units: debit.units });
    if (!run || !decided.ok) return { kind: 'exhausted' };
    run.credits = decided.credits;
    run.after.push(run.credits);
    const answer: GrantedAnswer = { accountId: debit.accountId, productId: debit.productId, credits: run.credits };
    const { productId, requestId, digest } = debit;
    run.entries.push({ delta: -debit.units, credits: run.credits, cause: 'usage', productId, requestId, digest });
    granted += 1;
    return { kind: 'granted', answer };
  });
  const balances = [...runs.values()].map((run) => ({
    accountId: run.accountId,
    poolId: run.poolId,
    previousCredits: run.previous,
    credits: run.credits,
  }));
  return { outcomes, granted, balances, changes: [...runs.values()].flatMap(changesOf) };
}
