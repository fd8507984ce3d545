import { alertContact, productPool, type ProductPool } from '@platform/accounts';
import type { Queryable } from '@platform/db';
import { DEFAULT_SETTINGS } from '../domain/alert-rules';
import type { Recipient } from '../domain/notifier-store';

/** Records an event id; false when it was already recorded (the event was handled before). */
export async function markProcessed(db: Queryable, eventId: string, accountId: number, poolId: number): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO notifier_processed_events (event_id, account_id, pool_id) VALUES ($1, $2, $3)
     ON CONFLICT (event_id) DO NOTHING`,
    [eventId, accountId, poolId],
  );
  return result.rowCount === 1;
}

/** The account's e-mail and alert settings (user service tables, read-only; no row = defaults). */
export async function findRecipient(db: Queryable, accountId: number): Promise<Recipient | undefined> {
  const contact = await alertContact(db, accountId);
  if (!contact) return undefined;
  return {
    email: contact.email,
    accountEmail: contact.accountEmail,
    webhookEnabled: contact.webhookEnabled,
    settings: {
      lowEnabled: contact.lowBalanceEnabled ?? DEFAULT_SETTINGS.lowEnabled,
      threshold: contact.lowBalanceThreshold ?? DEFAULT_SETTINGS.threshold,
      zeroEnabled: contact.zeroBalanceEnabled ?? DEFAULT_SETTINGS.zeroEnabled,
    },
  };
}

/** The pool a product belongs to (the event names the pool's lowest product id; any member works). */
export const findPool = (db: Queryable, productId: number): Promise<ProductPool | undefined> => productPool(db, productId);
