import type { Pool } from 'pg';
import { withTransaction } from '@platform/db';
import type { ActiveKey, KeyDirectory } from '@platform/credentials';
import { KEY_BUSY, type IssuanceKeys } from '../domain/issue-token';
import { asUnavailable } from './unavailable';

// The slow path's read: the same columns as KeyDirectory.findActive, with a share lock on the key
// row and the account row. A rotation holds one of them (FOR UPDATE / UPDATE) from before it
// bumps the generation in Redis until it commits, so NOWAIT fails while one is in progress.
const FIND_ACTIVE_LOCKED = `
SELECT k.account_id, a.key_generation,
       EXISTS (SELECT 1 FROM pool_balances b WHERE b.account_id = k.account_id AND b.credits > 0) AS has_credits
  FROM api_keys k JOIN accounts a ON a.id = k.account_id
 WHERE k.key_hash = $1 AND k.active
   FOR SHARE OF k, a NOWAIT`;

const LOCK_NOT_AVAILABLE = '55P03';

class KeyBusy extends Error {}

export interface IssuanceKeysOptions {
  /** How long a lookup may be reused; 0 disables the cache. */
  cacheMs: number;
  maxEntries?: number;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/**
 * API-key reads for token issuance. Lookups of keys whose account has credits may be reused for
 * `cacheMs`: a rotation is still caught at once, because the mint is refused when the account's
 * generation has moved past the cached one (and the entry is then evicted). Lookups without
 * credits and unknown keys are never cached, so a top-up or a new key is seen at once; a pool
 * that drops to 0 is seen within `cacheMs`.
 */
export function createIssuanceKeys(pool: Pool, directory: KeyDirectory, options: IssuanceKeysOptions): IssuanceKeys {
  const maxEntries = options.maxEntries ?? 10_000;
  const cache = new Map<string, { key: ActiveKey; until: number }>();

  return {
    async find(keyHash) {
      if (options.cacheMs > 0) {
        const entry = cache.get(keyHash);
        if (entry && entry.until > options.now()) return entry.key;
        if (entry) cache.delete(keyHash);
      }
      const key = await directory.findActive(keyHash);
      if (options.cacheMs > 0 && key?.hasCredits) {
        if (cache.size >= maxEntries) {
          const oldest = cache.keys().next();
          if (oldest.done !== true) cache.delete(oldest.value);
        }
        cache.set(keyHash, { key, until: options.now() + options.cacheMs });
      }
      return key;
    },
    evict(keyHash) {
      cache.delete(keyHash);
    },
    async whileLocked(keyHash, fn) {
      try {
        return await withTransaction(pool, async (client) => {
          const result = await client
            .query<{ account_id: number; key_generation: number | string; has_credits: boolean }>(FIND_ACTIVE_LOCKED, [keyHash])
            .catch((error: unknown) => {
              throw (error as { code?: unknown }).code === LOCK_NOT_AVAILABLE ? new KeyBusy() : error;
            });
          const row = result.rows[0];
          return fn(
            row ? { accountId: Number(row.account_id), generation: Number(row.key_generation), hasCredits: row.has_credits } : undefined,
          );
        });
      } catch (error) {
        if (error instanceof KeyBusy) return KEY_BUSY;
        throw asUnavailable(error);
      }
    },
  };
}
