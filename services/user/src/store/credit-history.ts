import type { Queryable } from '@platform/db';
import type { CreditChangeRow, CreditHistoryReads } from '../domain/credit-history';

// A row written before the ledger kept product ids counts under its pool's id.
const PAGE = `
SELECT id, COALESCE(product_id, pool_id) AS product_id, delta, credits_after, cause, created_at
  FROM credit_ledger
 WHERE account_id = $1 AND cause IN ('top-up', 'adjustment') AND ($2::bigint IS NULL OR id < $2)
 ORDER BY id DESC LIMIT $3`;

interface Row {
  id: string;
  product_id: number;
  delta: string;
  credits_after: string;
  cause: CreditChangeRow['cause'];
  created_at: Date;
}

export function createCreditHistoryReads(db: Queryable): CreditHistoryReads {
  return {
    async page(accountId, before, limit) {
      const { rows } = await db.query<Row>(PAGE, [accountId, before ?? null, limit]);
      return rows.map((row) => ({
        id: row.id,
        productId: row.product_id,
        delta: Number(row.delta),
        credits: Number(row.credits_after),
        cause: row.cause,
        at: row.created_at,
      }));
    },
  };
}
