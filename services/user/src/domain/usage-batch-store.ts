import type { PoolCredits } from './user-store';

/** One credit pool of one account. */
export interface PoolKey {
  accountId: number;
  poolId: number;
}

/** A pool's credits before and after a batch (or one step of it). */
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

/** A granted debit as the batch writes it: its ledger row and its requestId's answer. */
export interface Grant extends GrantedAnswer {
  requestId: string;
  digest: string;
  poolId: number;
  units: number;
}

/** Everything a batch writes: new pool credits, one ledger row and one answer per grant, the balance events. */
export interface BatchWrites {
  /** Pools whose credits changed, with their credits after the batch. */
  pools: readonly PoolBalance[];
  /** In the order the debits were decided. */
  grants: readonly Grant[];
  /** `balance.changed` events, in order. */
  changes: readonly PoolBalance[];
}

/** The queries of one usage batch, on one transaction's connection. */
export interface UsageBatchQueries {
  /**
   * Locks the pools' rows (in key order, so that batches never deadlock) and reads their
   * credits (a pool not held is absent), and the kept answers among the requestIds, in one
   * round trip. The answers are read as of the statement's start: one that another transaction
   * committed while this one waited for a lock is missing, and shows as a requestId that
   * `write` could not take.
   */
  lockAndRead(
    keys: readonly PoolKey[],
    requestIds: readonly string[],
  ): Promise<{ credits: Map<string, number>; known: Map<string, StoredAnswer> }>;
  /**
   * Writes the batch in one statement. Returns how many of the grants' requestIds it could
   * take: fewer than grants.length means another transaction took some meanwhile (the caller
   * rolls back and decides again).
   */
  write(writes: BatchWrites): Promise<number>;
  /** Every pool of these accounts with its credits (any order). */
  accountPools(accountIds: readonly number[]): Promise<Map<number, PoolCredits[]>>;
  /** The account's active key hashes, its row held FOR SHARE (after the pool rows: see lockAndRead). */
  activeKeys(accountId: number): Promise<string[]>;
}

export interface UsageBatchStore {
  /** What `lockAndRead` reads, without a transaction and without locks. */
  read(
    keys: readonly PoolKey[],
    requestIds: readonly string[],
  ): Promise<{ credits: Map<string, number>; known: Map<string, StoredAnswer> }>;
  /**
   * Writes a batch decided on `read` or on kept credits as one statement that is its own
   * transaction, if every pool it changes still holds its `previousCredits` and every grant's
   * requestId is still free (on a client of its own: a refused write keeps its connection).
   * Resolves true once committed; false when something changed meanwhile, and then nothing was written.
   */
  writeIfUnchanged(writes: BatchWrites): Promise<boolean>;
  /** Runs fn in one transaction (COMMIT when it resolves, ROLLBACK when it throws); a deadlock is retried. */
  transaction<T>(fn: (tx: UsageBatchQueries) => Promise<T>): Promise<T>;
}

/** Map key of a pool. */
export const poolKey = (accountId: number, poolId: number): string => `${accountId}:${poolId}`;
