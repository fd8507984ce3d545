import type { Pool } from 'pg';

/** An active API key as the credential check needs it. */
export interface ActiveKey {
  accountId: number;
  /** accounts.key_generation: the generation tokens minted from this key must carry. */
  generation: number;
  /** False when every credit pool of the account is at 0 (or it holds none). */
  hasCredits: boolean;
}

/** Read-only view of the user service's api_keys/accounts/pool_balances tables. */
export interface KeyDirectory {
  findActive(keyHash: string): Promise<ActiveKey | undefined>;
}

const FIND_ACTIVE = `
SELECT k.account_id, a.key_generation,
       EXISTS (SELECT 1 FROM pool_balances b WHERE b.account_id = k.account_id AND b.credits > 0) AS has_credits
  FROM api_keys k JOIN accounts a ON a.id = k.account_id
 WHERE k.key_hash = $1 AND k.active`;

export function createKeyDirectory(pool: Pick<Pool, 'query'>): KeyDirectory {
  return {
    async findActive(keyHash) {
      const result = await pool.query<{ account_id: number; key_generation: number; has_credits: boolean }>({
        name: 'credentials-find-active-key',
        text: FIND_ACTIVE,
        values: [keyHash],
      });
      const row = result.rows[0];
      return row ? { accountId: row.account_id, generation: Number(row.key_generation), hasCredits: row.has_credits } : undefined;
    },
  };
}
