import type { Queryable } from '@platform/db';
import type { ActiveKey, KeyDirectory } from '@platform/credentials';
import { readSingleFlight } from './read-batch';

// As the credentials package's KeyDirectory (an active key, its account's generation, whether
// any pool has credits), for many keys in one query.
const FIND_ACTIVE_KEYS = `
SELECT k.key_hash, k.account_id, a.key_generation,
       EXISTS (SELECT 1 FROM pool_balances b WHERE b.account_id = k.account_id AND b.credits > 0) AS has_credits
  FROM api_keys k JOIN accounts a ON a.id = k.account_id
 WHERE k.key_hash = ANY($1::text[]) AND k.active`;

/**
 * The API-key check of the user service's own routes: one query at a time carries every check
 * asked for meanwhile (readSingleFlight). Every check still reads Postgres after its request
 * arrived (nothing is cached), so a key replaced before the request came is refused.
 */
export function createBatchedKeyDirectory(pool: Queryable): KeyDirectory {
  const byHash = readSingleFlight<string, ActiveKey | undefined>(
    async (keyHashes) => {
      const result = await pool.query<{ key_hash: string; account_id: number; key_generation: number; has_credits: boolean }>({
        name: 'user-find-active-keys',
        text: FIND_ACTIVE_KEYS,
        values: [keyHashes],
      });
      return new Map(
        result.rows.map((row) => [
          row.key_hash,
          { accountId: row.account_id, generation: Number(row.key_generation), hasCredits: row.has_credits },
        ]),
      );
    },
    () => undefined,
  );
  return { findActive: (keyHash) => byHash.load(keyHash) };
}
