import { LRUCache } from 'lru-cache';

/*
 * Speed in one place: what the user service keeps in memory so that the domain reads as the
 * rules. Each is only ever a guess or a copy of what Postgres committed, and says what it buys
 * (figures from docs/benchmarks.md). The others, beside the SQL they save:
 * - the debit batcher (domain/usage-batcher.ts): group commit, one transaction per batch of
 *   debits; CPU per debit from ~5.5 ms to ~0.85 ms on a loaded machine;
 * - the read batches of the balance endpoint (store/balances.ts, `readBatch`): the reads of one
 *   event-loop turn as one query (balance by token 0.82–0.85× → above bare express);
 * - the kept catalogue (store/catalogue.ts): a balance is one primary-key range read;
 * - the usage batch route's checks (routes/usage-batch-items.ts, batchChecks): one credential
 *   check per distinct credential and one catalogue rule per distinct product of a batch
 *   (batch-one-pool 18 → 9–13 µs of service CPU per debit, docs/benchmarks.md).
 */

// KEPT CREDITS. Buys one round trip per usage batch instead of two: a batch is decided on the
// credits the last batch left, and its write checks them (Postgres CPU per debit 56.8 → 42.0 µs,
// `bench:usage-statements`, 27 Nov).

/**
 * Pools whose credits a batch commit keeps from its last read or write: about 100 bytes each, and
 * lru-cache sets aside about 28 bytes per entry at start (2.8 MB).
 */
export const KEPT_POOLS = 100_000;
/**
 * How long a pool whose kept credits a write found changed is read before every batch instead:
 * another replica or an operator writes it too, and a refused write (its rows inserted, then
 * undone) costs Postgres more than the read it was meant to save.
 */
const DISTRUST_MS = 60_000;

/** One pool of one account (domain/usage-reads.ts PoolKey), and its credits after a change. */
interface PoolKey {
  accountId: number;
  poolId: number;
}
interface PoolBalance extends PoolKey {
  credits: number;
}

/** The kept credits of a usage batch commit (domain/commit-usage-batch.ts). */
export interface KeptCredits {
  /** The kept credits of every pool, or undefined when one has none. */
  all(pools: readonly PoolKey[]): Map<string, number> | undefined;
  /** The pools' credits as a committed batch left them (not for a pool read first for now). */
  remember(balances: readonly PoolBalance[]): void;
  /** A write found these pools changed: read them first for a while. */
  distrust(pools: readonly PoolKey[]): void;
  /** A batch over these pools failed: what it would have left is unknown. */
  forget(pools: readonly PoolKey[]): void;
}

/** What a commit keeps for a pool: its credits, or the time until which it keeps none. */
type Kept = number | { readUntil: number };

/**
 * The credits this process last saw for its pools, at most `max` entries (the least recently
 * used go first; none at all when `max` is 0). Only ever a guess: a write decided on them checks
 * that each pool still holds them. `poolKey` keys the pools as the batch decision reads them.
 */
export function keptCredits(max: number, now: () => number, poolKey: (accountId: number, poolId: number) => string): KeptCredits {
  const kept = max > 0 ? new LRUCache<string, Kept>({ max }) : undefined;
  return {
    /** The kept credits of every pool, or undefined when one has none. */
    all(pools: readonly PoolKey[]): Map<string, number> | undefined {
      if (!kept) return undefined;
      const found = new Map<string, number>();
      for (const pool of pools) {
        const key = poolKey(pool.accountId, pool.poolId);
        const value = kept.get(key);
        if (typeof value !== 'number') return undefined;
        found.set(key, value);
      }
      return found;
    },
    /** The pools' credits as a committed batch left them (not for a pool read first for now). */
    remember(balances: readonly PoolBalance[]): void {
      for (const balance of balances) {
        const key = poolKey(balance.accountId, balance.poolId);
        const value = kept?.get(key);
        if (typeof value === 'object' && value.readUntil > now()) continue;
        kept?.set(key, balance.credits);
      }
    },
    /** A write found these pools changed: read them first for a while. */
    distrust(pools: readonly PoolKey[]): void {
      for (const pool of pools) kept?.set(poolKey(pool.accountId, pool.poolId), { readUntil: now() + DISTRUST_MS });
    },
    /** A batch over these pools failed: what it would have left is unknown. */
    forget(pools: readonly PoolKey[]): void {
      for (const pool of pools) kept?.delete(poolKey(pool.accountId, pool.poolId));
    },
  };
}

/**
 * RECENT ANSWERS. Buys a replay answered without a batch; in lru-cache, not a Map: 0.2–0.3 µs per
 * get and set instead of 5.0–5.5 µs once full (3.7 % of the usage API's CPU).
 */
/**
 * Answers of granted debits this process has seen committed, by requestId, so that a replay is
 * answered without a batch. Safe to keep: a kept answer never changes while its row lives
 * (CONTRACT §9: at least 24 hours), and an entry older than `maxAgeMs` is forgotten. Bounded:
 * past `maxEntries` the least recently used entry goes.
 */
export interface RecentAnswers<T extends object> {
  get(requestId: string): T | undefined;
  set(requestId: string, answer: T): void;
}

export function createRecentAnswers<T extends object>(options: {
  maxEntries: number;
  maxAgeMs: number;
  now?: () => number;
}): RecentAnswers<T> {
  // lru-cache, not a Map evicted through keys().next(): a Map keeps a deleted entry's slot until
  // it rehashes, and every new iterator steps over those slots (3.7 % of the usage API's CPU).
  const entries = new LRUCache<string, T>({
    max: options.maxEntries,
    ttl: options.maxAgeMs,
    // The clock read at each call, not cached for a millisecond: an injected clock moves at once.
    ttlResolution: 0,
    ...(options.now ? { perf: { now: options.now } } : {}),
  });
  return {
    get: (requestId) => entries.get(requestId),
    set(requestId, answer) {
      if (!entries.has(requestId)) entries.set(requestId, answer);
    },
  };
}

/**
 * REQUEST DIGESTS. Buys a debit's digest (SHA-256 of its credential's hash, product and units:
 * what a replay must match, domain/usage.ts) computed once per distinct triple instead of once per
 * debit: a product's calls repeat the same keys, product and units. The digest is a pure function
 * of the triple, so a kept one is never stale. At most `max` triples (the least recently used go).
 * `digestOf` (a JSON.stringify and a SHA-256 per debit) was 3.7 % of the batch route's CPU in the
 * profile of 6 Dec, 09:02; a kept digest is one lru-cache read (0.2–0.3 µs).
 */
export function keptDigests(
  max: number,
  digest: (secretHash: string, productId: number, units: number) => string,
): (secretHash: string, productId: number, units: number) => string {
  const kept = new LRUCache<string, string>({ max });
  return (secretHash, productId, units) => {
    const key = `${secretHash}:${productId}:${units}`;
    let value = kept.get(key);
    if (value === undefined) {
      value = digest(secretHash, productId, units);
      kept.set(key, value);
    }
    return value;
  };
}
