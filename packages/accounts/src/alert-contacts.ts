import type { Queryable } from '@platform/db';

/** Where an account's alerts go and what it chose (null: never set, the reader's defaults apply). */
export interface AlertContact {
  email: string;
  lowBalanceEnabled: boolean | null;
  lowBalanceThreshold: number | null;
  zeroBalanceEnabled: boolean | null;
}

/** The account's e-mail and alert settings, read-only; undefined when there is no such account. */
export async function alertContact(db: Queryable, accountId: number): Promise<AlertContact | undefined> {
  const result = await db.query<{
    email: string;
    low_balance_enabled: boolean | null;
    low_balance_threshold: number | null;
    zero_balance_enabled: boolean | null;
  }>(
    `SELECT a.email, s.low_balance_enabled, s.low_balance_threshold, s.zero_balance_enabled
       FROM accounts a LEFT JOIN notification_settings s ON s.account_id = a.id
      WHERE a.id = $1`,
    [accountId],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    email: row.email,
    lowBalanceEnabled: row.low_balance_enabled,
    lowBalanceThreshold: row.low_balance_threshold,
    zeroBalanceEnabled: row.zero_balance_enabled,
  };
}

/** A credit pool as a reader names it. */
export interface ProductPool {
  poolId: number;
  /** Name of the pool's lowest-id product. */
  productName: string;
  /** Names of every product in the pool, by id. */
  products: string[];
}

/** The pool a catalogue product belongs to (any member of the pool names it); undefined for an unknown product. */
export async function productPool(db: Queryable, productId: number): Promise<ProductPool | undefined> {
  const result = await db.query<{ pool_id: number; names: string[] }>(
    `SELECT p.pool_id, array(SELECT m.name FROM products m WHERE m.pool_id = p.pool_id ORDER BY m.id) AS names
       FROM products p WHERE p.id = $1`,
    [productId],
  );
  const row = result.rows[0];
  const productName = row?.names[0];
  return row && productName !== undefined ? { poolId: row.pool_id, productName, products: row.names } : undefined;
}
