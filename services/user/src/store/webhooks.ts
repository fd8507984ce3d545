import type { Queryable } from '@platform/db';
import { recordWebhookAttempt } from '@platform/accounts';
import type { WebhookAttemptView, WebhookStore } from '../domain/webhooks';

/** The account's webhook attempts and target (tables of migration 20261128080000000_webhooks). */
export function createWebhookStore(db: Queryable): WebhookStore {
  return {
    async readTarget(accountId) {
      const result = await db.query<{ webhook_url: string; webhook_secret: string }>(
        `SELECT webhook_url, webhook_secret FROM notification_settings
          WHERE account_id = $1 AND webhook_url IS NOT NULL AND webhook_secret IS NOT NULL`,
        [accountId],
      );
      const row = result.rows[0];
      return row ? { url: row.webhook_url, secret: row.webhook_secret } : undefined;
    },
    async listAttempts(accountId, limit) {
      const result = await db.query<{
        webhook_id: string;
        type: string;
        attempted_at: Date;
        response_status: number | null;
        error: string | null;
        next_retry_at: Date | null;
      }>(
        `SELECT webhook_id, type, attempted_at, response_status, error, next_retry_at FROM webhook_attempts
          WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
        [accountId, limit],
      );
      return result.rows.map((row): WebhookAttemptView => ({
        id: row.webhook_id,
        type: row.type,
        attemptedAt: row.attempted_at,
        status: row.response_status,
        error: row.error,
        nextRetryAt: row.next_retry_at,
      }));
    },
    recordAttempt: (accountId, attempt) =>
      recordWebhookAttempt(db, {
        accountId,
        webhookId: attempt.id,
        type: attempt.type,
        status: attempt.outcome.status,
        error: attempt.outcome.error,
        nextRetryAt: undefined,
      }),
  };
}
