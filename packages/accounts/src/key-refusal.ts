import type pg from 'pg';
import type { ExplainKeyRefusal } from '@platform/credentials';

// A key is made inactive by a rotation (a newer key replaces it) or by disabling its account (its
// latest key stays the latest). So an inactive key of an enabled account was replaced; one of a
// disabled account was replaced only if a newer key exists (looked for in that case alone).
const KEY_STATE = `
SELECT k.active, a.disabled,
       CASE WHEN a.disabled AND NOT k.active
            THEN EXISTS (SELECT 1 FROM api_keys n WHERE n.account_id = k.account_id AND n.id > k.id)
            ELSE false END AS superseded
  FROM api_keys k JOIN accounts a ON a.id = k.account_id
 WHERE k.key_hash = $1`;

/** A refusal waits at most this long for its reason; then it is answered `invalid_credential`. */
export const KEY_REFUSAL_TIMEOUT_MS = 1000;

/**
 * Why a key the access store does not know was refused, read from Postgres (the authority on
 * keys, CONTRACT §3) on the refusal path only: `key_replaced`, `account_disabled`, or
 * `invalid_credential` (unknown, or active in Postgres while the store has not caught up). It
 * names the key's own state and nothing of its account. Rejects when Postgres does not answer
 * within KEY_REFUSAL_TIMEOUT_MS (the caller answers the plain reason).
 */
export function keyRefusalExplainer(pool: pg.Pool, timeoutMs = KEY_REFUSAL_TIMEOUT_MS): ExplainKeyRefusal {
  return async (keyHash) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the key's state was not read within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const result = await Promise.race([
        pool.query<{ active: boolean; disabled: boolean; superseded: boolean }>(KEY_STATE, [keyHash]),
        late,
      ]);
      const row = result.rows[0];
      if (row === undefined || row.active) return 'invalid_credential';
      if (!row.disabled || row.superseded) return 'key_replaced';
      return 'account_disabled';
    } finally {
      clearTimeout(timer);
    }
  };
}
