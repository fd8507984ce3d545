import type { Queryable } from '@platform/db';

/** A pool whose credits are not what its ledger says (CONTRACT §7.1, `pnpm admin verify-ledger`). */
export interface LedgerDifference {
  accountId: number;
  poolId: number;
  credits: number;
  /** Top-ups and adjustments, minus charges and open holds. */
  expected: number;
  topUps: number;
  adjustments: number;
  /** Usage debits and settled reservations' charges (a positive number). */
  charges: number;
  /** Units the ledger holds for reservations: its holds less its returns (a positive number). */
  openHolds: number;
}

// Everything from the ledger: a reservation's hold is a `hold` row (its units taken), its end a
// `release` row (every held unit back) and, when settled, a `usage` row (its charge). The open
// holds are the holds less the returns: a held reservation's units; an ended one's hold and
// return cancel out. A hold or return recorded twice, or never, shows as a difference.
const DIFFERENCES = `
WITH ledger AS (
  SELECT account_id, pool_id,
         coalesce(sum(delta) FILTER (WHERE cause = 'top-up'), 0) AS top_ups,
         coalesce(sum(delta) FILTER (WHERE cause = 'adjustment'), 0) AS adjustments,
         coalesce(-sum(delta) FILTER (WHERE cause = 'usage'), 0) AS charges,
         coalesce(-sum(delta) FILTER (WHERE cause IN ('hold', 'release')), 0) AS open_holds
    FROM credit_ledger WHERE $1::int IS NULL OR account_id = $1 GROUP BY account_id, pool_id
), checked AS (
  SELECT b.account_id, b.pool_id, b.credits,
         coalesce(l.top_ups, 0) AS top_ups, coalesce(l.adjustments, 0) AS adjustments,
         coalesce(l.charges, 0) AS charges, coalesce(l.open_holds, 0) AS open_holds
    FROM pool_balances b
    LEFT JOIN ledger l ON l.account_id = b.account_id AND l.pool_id = b.pool_id
   WHERE $1::int IS NULL OR b.account_id = $1
)
SELECT (SELECT count(*) FROM checked) AS pools, c.*
  FROM (SELECT 1) one
  LEFT JOIN checked c ON c.credits <> c.top_ups + c.adjustments - c.charges - c.open_holds
 ORDER BY c.account_id, c.pool_id`;

interface DifferenceRow {
  pools: string;
  account_id: number | null;
  pool_id: number;
  credits: string;
  top_ups: string;
  adjustments: string;
  charges: string;
  open_holds: string;
}

/** Every pool (of one account, or all) whose credits differ from its ledger, and how many pools were checked. */
export async function ledgerDifferences(db: Queryable, accountId?: number): Promise<{ pools: number; differences: LedgerDifference[] }> {
  const result = await db.query<DifferenceRow>(DIFFERENCES, [accountId ?? null]);
  const pools = Number(result.rows[0]?.pools ?? 0);
  const differences = result.rows
    .filter((row) => row.account_id !== null)
    .map((row) => {
      const [topUps, adjustments, charges, openHolds] = [row.top_ups, row.adjustments, row.charges, row.open_holds].map(Number) as [
        number,
        number,
        number,
        number,
      ];
      return {
        accountId: row.account_id as number,
        poolId: row.pool_id,
        credits: Number(row.credits),
        expected: topUps + adjustments - charges - openHolds,
        topUps,
        adjustments,
        charges,
        openHolds,
      };
    });
  return { pools, differences };
}
