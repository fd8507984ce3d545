import type { Queryable } from '@platform/db';
import type { WebhookDisabledReason } from '@platform/accounts';
import type { NotificationSettings, StoredSettingsPatch } from '../domain/settings';

// The defaults live in the table's column defaults; an absent row reads as those (CONTRACT §6).
const READ = `
SELECT COALESCE(s.low_balance_enabled, true) AS low_balance_enabled,
       COALESCE(s.low_balance_threshold, 10) AS low_balance_threshold,
       COALESCE(s.zero_balance_enabled, true) AS zero_balance_enabled,
       COALESCE(s.alert_email, a.email) AS email, s.webhook_url, COALESCE(s.webhook_enabled, true) AS webhook_enabled,
       s.webhook_disabled_reason
  FROM (SELECT 1) one LEFT JOIN notification_settings s ON s.account_id = $1
  LEFT JOIN accounts a ON a.id = $1`;

// One statement, so that two concurrent partial updates never undo each other's fields. $5/$7
// say whether the e-mail / the webhook change (their values may be NULL: reset, remove). Its one
// caller is the account transaction's `apply` (a `settings` change, domain/account-change.ts), which
// reads the document back in the same transaction (guarded by services/user/test/credit-write-path.test.ts).
const UPSERT = `
INSERT INTO notification_settings AS s
  (account_id, low_balance_enabled, low_balance_threshold, zero_balance_enabled, alert_email, webhook_url, webhook_enabled, webhook_secret)
VALUES ($1, COALESCE($2::boolean, true), COALESCE($3::integer, 10), COALESCE($4::boolean, true), $6::text, $8::text,
        COALESCE($9::boolean, true), $10::text)
ON CONFLICT (account_id) DO UPDATE SET
  low_balance_enabled = COALESCE($2::boolean, s.low_balance_enabled),
  low_balance_threshold = COALESCE($3::integer, s.low_balance_threshold),
  zero_balance_enabled = COALESCE($4::boolean, s.zero_balance_enabled),
  alert_email = CASE WHEN $5::boolean THEN $6::text ELSE s.alert_email END,
  webhook_url = CASE WHEN $7::boolean THEN $8::text ELSE s.webhook_url END,
  webhook_enabled = CASE WHEN $7::boolean THEN COALESCE($9::boolean, true) ELSE s.webhook_enabled END,
  webhook_secret = CASE WHEN NOT $7::boolean THEN s.webhook_secret WHEN $8::text IS NULL THEN NULL
                        ELSE COALESCE($10::text, s.webhook_secret) END,
  -- Setting the webhook again (CONTRACT §6.1) starts it afresh: no reason, no failures counted.
  webhook_disabled_reason = CASE WHEN $7::boolean THEN NULL ELSE s.webhook_disabled_reason END,
  webhook_failing_since = CASE WHEN $7::boolean THEN NULL ELSE s.webhook_failing_since END,
  updated_at = now()`;

interface Row {
  low_balance_enabled: boolean;
  low_balance_threshold: number;
  zero_balance_enabled: boolean;
  email: string | null;
  webhook_url: string | null;
  webhook_enabled: boolean;
  webhook_disabled_reason: WebhookDisabledReason | null;
}

function toSettings(row: Row): NotificationSettings {
  return {
    lowBalanceAlert: { enabled: row.low_balance_enabled, threshold: Number(row.low_balance_threshold) },
    zeroBalanceAlert: { enabled: row.zero_balance_enabled },
    email: row.email ?? '',
    webhook:
      row.webhook_url === null
        ? null
        : {
            url: row.webhook_url,
            enabled: row.webhook_enabled,
            ...(row.webhook_disabled_reason === null ? {} : { disabledReason: row.webhook_disabled_reason }),
          },
  };
}

export async function readNotificationSettings(db: Queryable, accountId: number): Promise<NotificationSettings> {
  const result = await db.query<Row>(READ, [accountId]);
  return toSettings(result.rows[0] as Row);
}

/** Writes a `settings` change (store/account-transaction.ts alone calls it). */
export async function writeNotificationSettings(db: Queryable, accountId: number, patch: StoredSettingsPatch): Promise<void> {
  const { webhook } = patch;
  await db.query(UPSERT, [
    accountId,
    patch.lowBalanceEnabled ?? null,
    patch.lowBalanceThreshold ?? null,
    patch.zeroBalanceEnabled ?? null,
    patch.email !== undefined,
    patch.email ?? null,
    webhook !== undefined,
    webhook?.url ?? null,
    webhook?.enabled ?? null,
    webhook === null ? null : (webhook?.secret ?? null),
  ]);
}
