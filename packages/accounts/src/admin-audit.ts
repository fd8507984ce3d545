import type { Queryable } from '@platform/db';

/** One row of the audit log (`admin_audit`, append-only), written in the transaction of the change it describes. */
export interface AdminAuditRow {
  /** The admin token's name, or `account` for the customer's own key rotation. */
  actor: string;
  /** `account.create`, `credits.top-up`, `category.create`, … */
  action: string;
  /** The account concerned; null for a change of no account (a category). */
  accountId: number | null;
  details: Record<string, unknown>;
}

/**
 * Appends a row to the one audit log every admin API writes (CONTRACT §7: the actor of every
 * admin write on every service), so that `GET /admin/v1/audit` on the user service shows the
 * categorization service's writes too. Run it on the transaction of the change.
 */
export async function appendAdminAudit(db: Queryable, row: AdminAuditRow): Promise<void> {
  await db.query('INSERT INTO admin_audit (actor, action, account_id, details) VALUES ($1, $2, $3, $4)', [
    row.actor,
    row.action,
    row.accountId,
    JSON.stringify(row.details),
  ]);
}
