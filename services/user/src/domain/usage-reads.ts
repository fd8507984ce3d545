/** The pools and kept answers a usage batch is decided on (CONTRACT §5, §9), and their read without locks. */

/** One credit pool of one account. */
export interface PoolKey {
  accountId: number;
  poolId: number;
}

/** A pool's credits before and after a batch. */
export interface PoolBalance extends PoolKey {
  previousCredits: number;
  credits: number;
}

/** The answer a granted debit got, kept under its requestId so that a replay gets it again. */
export interface GrantedAnswer {
  accountId: number;
  productId: number;
  /** Credits left in the pool after the debit. */
  credits: number;
}

/** A kept answer and the digest of the request that got it (same credential, product and units). */
export interface StoredAnswer extends GrantedAnswer {
  digest: string;
}

/** The pools' credits (by poolKey; a pool not held is absent) and the kept answers among some requestIds. */
export interface PoolsAndAnswers {
  credits: Map<string, number>;
  known: Map<string, StoredAnswer>;
}

/**
 * What a usage batch reads outside any transaction, without locks, to decide a batch that will be
 * written alone (AccountTransactions.applyAlone checks at the write what it was decided on). Its
 * locked read is the account transaction's (AccountTransaction.lockPoolsAndAnswers).
 */
export interface UsageReads {
  read(keys: readonly PoolKey[], requestIds: readonly string[]): Promise<PoolsAndAnswers>;
}

/** Map key of a pool. */
export const poolKey = (accountId: number, poolId: number): string => `${accountId}:${poolId}`;
