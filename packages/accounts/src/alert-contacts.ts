import type { Queryable } from '@platform/db';

/** Where an account's alerts go and what it chose (null: never set, the reader's defaults apply). */
export interface AlertContact {
  /** Where alert e-mails go: the settings' `email` when set, else the account's (CONTRACT §6). */
  email: string;
  /** The account's own e-mail, which names the account in the alerts. */
  accountEmail: string;
  /** The balance webhook, when one is set and enabled (CONTRACT §6.1). */
  webhookEnabled: boolean;
  lowBalanceEnabled: boolean | null;
  lowBalanceThreshold: number | null;
  zeroBalanceEnabled: boolean | null;
}

/** The account's e-mail and alert settings, read-only; undefined when there is no such account. */
export async function alertContact(db: Queryable, accountId: number): Promise<AlertContact | undefined> {
  const result = await db.query<{
    email: string;
    alert_email: string | null;
    webhook_on: boolean;
    low_balance_enabled: boolean | null;
    low_balance_threshold: number | null;
    zero_balance_enabled: boolean | null;
  }>(
    `SELECT a.email, s.alert_email, COALESCE(s.webhook_url IS NOT NULL AND s.webhook_enabled, false) AS webhook_on, s.low_balance_enabled, s.low_balance_threshold, s.zero_balance_enabled
       FROM accounts a LEFT JOIN notification_settings s ON s.account_id = a.id
      WHERE a.id = $1`,
    [accountId],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    email: row.alert_email ?? row.email,
    accountEmail: row.email,
    webhookEnabled: row.webhook_on,
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
  /** Ids of every product in the pool, in the same order. */
  productIds: number[];
}

/** The pool a catalogue product belongs to (any member of the pool names it); undefined for an unknown product. */
export async function productPool(db: Queryable, productId: number): Promise<ProductPool | undefined> {
  const result = await db.query<{ pool_id: number; names: string[]; ids: number[] }>(
    `SELECT p.pool_id, array(SELECT m.name FROM products m WHERE m.pool_id = p.pool_id ORDER BY m.id) AS names,
            array(SELECT m.id FROM products m WHERE m.pool_id = p.pool_id ORDER BY m.id) AS ids
       FROM products p WHERE p.id = $1`,
    [productId],
  );
  const row = result.rows[0];
  const productName = row?.names[0];
  return row && productName !== undefined
    ? { poolId: row.pool_id, productName, products: row.names, productIds: row.ids.map(Number) }
    : undefined;
}
