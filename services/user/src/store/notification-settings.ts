import type { Queryable } from '@platform/db';
import type { NotificationSettings, NotificationSettingsPatch } from '../domain/user-store';

// The defaults live in the table's column defaults; an absent row reads as those (CONTRACT §6).
const READ = `
SELECT COALESCE(s.low_balance_enabled, true) AS low_balance_enabled,
       COALESCE(s.low_balance_threshold, 10) AS low_balance_threshold,
       COALESCE(s.zero_balance_enabled, true) AS zero_balance_enabled
  FROM (SELECT 1) one LEFT JOIN notification_settings s ON s.account_id = $1`;

// One statement, so that two concurrent partial updates never undo each other's fields.
const UPSERT = `
INSERT INTO notification_settings AS s (account_id, low_balance_enabled, low_balance_threshold, zero_balance_enabled)
VALUES ($1, COALESCE($2::boolean, true), COALESCE($3::integer, 10), COALESCE($4::boolean, true))
ON CONFLICT (account_id) DO UPDATE SET
  low_balance_enabled = COALESCE($2::boolean, s.low_balance_enabled),
  low_balance_threshold = COALESCE($3::integer, s.low_balance_threshold),
  zero_balance_enabled = COALESCE($4::boolean, s.zero_balance_enabled),
  updated_at = now()
RETURNING low_balance_enabled, low_balance_threshold, zero_balance_enabled`;

interface Row {
  low_balance_enabled: boolean;
  low_balance_threshold: number;
  zero_balance_enabled: boolean;
}

function toSettings(row: Row): NotificationSettings {
  return {
    lowBalanceAlert: { enabled: row.low_balance_enabled, threshold: Number(row.low_balance_threshold) },
    zeroBalanceAlert: { enabled: row.zero_balance_enabled },
  };
}

export async function readNotificationSettings(db: Queryable, accountId: number): Promise<NotificationSettings> {
  const result = await db.query<Row>(READ, [accountId]);
  return toSettings(result.rows[0] as Row);
}

export async function updateNotificationSettings(
  db: Queryable,
  accountId: number,
  patch: NotificationSettingsPatch,
): Promise<NotificationSettings> {
  const result = await db.query<Row>(UPSERT, [
    accountId,
    patch.lowBalanceEnabled ?? null,
    patch.lowBalanceThreshold ?? null,
    patch.zeroBalanceEnabled ?? null,
  ]);
  return toSettings(result.rows[0] as Row);
}
