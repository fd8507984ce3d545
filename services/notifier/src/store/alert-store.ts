import { alertContact, productPool, type ProductPool } from '@platform/accounts';
import type { Queryable } from '@platform/db';
import { DEFAULT_SETTINGS, INITIAL_STATE, type AlertState } from '../domain/alert-rules';
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

/** Reads the alert state of (account, pool) and locks it until the transaction ends. */
export async function lockAlertState(db: Queryable, accountId: number, poolId: number): Promise<AlertState> {
  await db.query('INSERT INTO notifier_alert_state (account_id, pool_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, poolId]);
  const result = await db.query<{ low_armed: boolean; zero_armed: boolean; last_occurred_at: Date | null; last_credits: number | null }>(
    `SELECT low_armed, zero_armed, last_occurred_at, last_credits FROM notifier_alert_state
      WHERE account_id = $1 AND pool_id = $2 FOR UPDATE`,
    [accountId, poolId],
  );
  const row = result.rows[0];
  if (!row) return INITIAL_STATE;
  return {
    lowArmed: row.low_armed,
    zeroArmed: row.zero_armed,
    lastOccurredAt: row.last_occurred_at,
    lastCredits: row.last_credits === null ? null : Number(row.last_credits),
  };
}

export async function saveAlertState(db: Queryable, accountId: number, poolId: number, state: AlertState): Promise<void> {
  await db.query(
    `UPDATE notifier_alert_state
        SET low_armed = $3, zero_armed = $4, last_occurred_at = $5, last_credits = $6, updated_at = now()
      WHERE account_id = $1 AND pool_id = $2`,
    [accountId, poolId, state.lowArmed, state.zeroArmed, state.lastOccurredAt, state.lastCredits],
  );
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
