import type { Queryable } from '@platform/db';

/** A pool an account holds, with its credits. */
export interface PoolCredit {
  poolId: number;
  credits: number;
}

/** Every pool the account holds, by pool id, as last committed (one query, no lock). */
export async function poolCreditsOf(db: Queryable, accountId: number): Promise<PoolCredit[]> {
  const result = await db.query<{ pool_id: number; credits: number }>({
    text: 'SELECT pool_id, credits FROM pool_balances WHERE account_id = $1 ORDER BY pool_id',
    values: [accountId],
  });
  return result.rows.map((row) => ({ poolId: row.pool_id, credits: Number(row.credits) }));
}
