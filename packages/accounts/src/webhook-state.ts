import type { Queryable } from '@platform/db';

/**
 * Whether an account's balance webhook still works (user service table `notification_settings`,
 * CONTRACT §6.1), as the notifier's dispatcher keeps it: the first failure since the last
 * delivery, and the disabling of a webhook that is gone or has failed for too long. Each write
 * names the URL it is about, so that a webhook set anew meanwhile is left alone.
 */

/** Why the service disabled a webhook: its receiver answered 410 Gone, or every delivery failed for 5 days. */
export type WebhookDisabledReason = 'gone' | 'failing';

/** A delivery to `url` succeeded: the webhook is no longer failing. */
export async function markWebhookDelivered(db: Queryable, accountId: number, url: string): Promise<void> {
  await db.query(
    `UPDATE notification_settings SET webhook_failing_since = NULL
      WHERE account_id = $1 AND webhook_url = $2 AND webhook_failing_since IS NOT NULL`,
    [accountId, url],
  );
}

/**
 * A delivery to `url` failed at `at`: answers since when the webhook has failed without a
 * delivery in between (`at` for the first failure); undefined when `url` is no longer the
 * account's enabled webhook.
 */
export async function markWebhookFailed(db: Queryable, accountId: number, url: string, at: Date): Promise<Date | undefined> {
  const result = await db.query<{ since: Date }>(
    `UPDATE notification_settings SET webhook_failing_since = COALESCE(webhook_failing_since, $3)
      WHERE account_id = $1 AND webhook_url = $2 AND webhook_enabled
      RETURNING webhook_failing_since AS since`,
    [accountId, url, at],
  );
  return result.rows[0]?.since;
}

/**
 * Disables the account's webhook at `url` for `reason` and gives up its undelivered events (no
 * more attempts). True only for the call that disabled it: a webhook already disabled, removed
 * or set to another URL is left as it is, so that one disabling sends one e-mail.
 */
export async function disableWebhook(db: Queryable, accountId: number, url: string, reason: WebhookDisabledReason): Promise<boolean> {
  const result = await db.query(
    `UPDATE notification_settings SET webhook_enabled = false, webhook_disabled_reason = $3, updated_at = now()
      WHERE account_id = $1 AND webhook_url = $2 AND webhook_enabled`,
    [accountId, url, reason],
  );
  if (result.rowCount !== 1) return false;
  await db.query(
    `UPDATE webhook_deliveries SET given_up_at = now()
      WHERE account_id = $1 AND delivered_at IS NULL AND given_up_at IS NULL`,
    [accountId],
  );
  return true;
}
