import type { Queryable } from '@platform/db';
import type { DailyUsage, UsageLedgerReads } from '../domain/usage-history';

// One range read of the partial index credit_ledger_usage_history (account, time; usage rows
// only). A debit written before the ledger kept product ids counts under its pool's id.
export const DAILY_USAGE = `
SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
       COALESCE(product_id, pool_id) AS product_id,
       (-SUM(delta))::bigint AS used
  FROM credit_ledger
 WHERE account_id = $1 AND cause = 'usage' AND created_at >= $2
   AND ($3::integer IS NULL OR COALESCE(product_id, pool_id) = $3)
 GROUP BY 1, 2
 ORDER BY 1, 2`;

/** The account's usage per UTC day and product since `from`, ordered by day, then product id; optionally of one product. */
async function readDailyUsage(db: Queryable, accountId: number, from: Date, productId: number | undefined): Promise<DailyUsage[]> {
  const result = await db.query<{ day: string; product_id: number; used: string }>({
    text: DAILY_USAGE,
    values: [accountId, from, productId ?? null],
  });
  return result.rows.map((row) => ({ date: row.day, productId: row.product_id, creditsUsed: Number(row.used) }));
}

/** The usage history's ledger reads on the pool. */
export function createUsageLedgerReads(db: Queryable): UsageLedgerReads {
  return { dailyUsage: (accountId, from, productId) => readDailyUsage(db, accountId, from, productId) };
}
