import type pg from 'pg';
import type { ExplainKeyRefusal } from '@platform/credentials';

// A key is made inactive by a rotation (a newer key replaces it) or by disabling its account (its
// latest key stays the latest). So an inactive key of an enabled account was replaced, when it
// was deactivated; one of a disabled account was replaced only if a newer key exists, when that
// key was made (looked for in that case alone: its deactivation may be the disabling's).
const KEY_STATE = `
SELECT k.active, a.disabled,
       CASE WHEN k.active THEN NULL
            WHEN NOT a.disabled THEN k.deactivated_at
            ELSE (SELECT n.created_at FROM api_keys n WHERE n.account_id = k.account_id AND n.id > k.id ORDER BY n.id LIMIT 1)
       END AS replaced_at
  FROM api_keys k JOIN accounts a ON a.id = k.account_id
 WHERE k.key_hash = $1`;

/** A refusal waits at most this long for its reason; then it is answered `invalid_credential`. */
export const KEY_REFUSAL_TIMEOUT_MS = 1000;

/**
 * Why a key the access store does not know was refused, read from Postgres (the authority on
 * keys, CONTRACT §3) on the refusal path only: `key_replaced` (with when), `account_disabled`, or
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
        pool.query<{ active: boolean; disabled: boolean; replaced_at: Date | null }>(KEY_STATE, [keyHash]),
        late,
      ]);
      const row = result.rows[0];
      if (row === undefined || row.active) return { reason: 'invalid_credential' };
      if (row.disabled && row.replaced_at === null) return { reason: 'account_disabled' };
      // A row made inactive without its time (by hand) is still a replaced key, of unknown time.
      return row.replaced_at === null ? { reason: 'key_replaced' } : { reason: 'key_replaced', replacedAt: row.replaced_at };
    } finally {
      clearTimeout(timer);
    }
  };
}
