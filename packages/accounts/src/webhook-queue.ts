import type { Queryable } from '@platform/db';

/**
 * The balance-webhook delivery queue (user service tables `webhook_deliveries`,
 * `webhook_attempts`), as the notifier fills and drains it (CONTRACT §6.1).
 */

export interface QueuedWebhook {
  /** `webhook-id`: the same for every retry of the event. */
  webhookId: string;
  accountId: number;
  type: string;
  body: string;
}

/** Queues an event (inside the transaction that decided it); a second enqueue of one id changes nothing. */
export async function enqueueWebhook(db: Queryable, webhook: QueuedWebhook): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (webhook_id, account_id, type, body) VALUES ($1, $2, $3, $4)
     ON CONFLICT (webhook_id) DO NOTHING`,
    [webhook.webhookId, webhook.accountId, webhook.type, webhook.body],
  );
}

export interface ClaimedWebhook extends QueuedWebhook {
  id: number;
  /** Attempts made, this one included. */
  attempts: number;
  /** The target now (undefined: removed or disabled since the event was queued). */
  url: string | undefined;
  secret: string | undefined;
}

/**
 * Claims up to `limit` due deliveries for `leaseMs`: rows another deliverer holds (locked now, or
 * claimed under a lease that has not run out) are skipped, so one row is sent by one deliverer
 * at a time, across replicas. A deliverer that dies leaves its rows to others when the lease ends.
 */
export async function claimDueWebhooks(
  db: Queryable,
  limit: number,
  leaseMs: number,
  except: readonly number[] = [],
): Promise<ClaimedWebhook[]> {
  const result = await db.query<{
    id: string;
    webhook_id: string;
    account_id: number;
    type: string;
    body: string;
    attempts: number;
    webhook_url: string | null;
    webhook_secret: string | null;
  }>(
    `WITH due AS (
       SELECT id FROM webhook_deliveries
        WHERE delivered_at IS NULL AND given_up_at IS NULL AND next_attempt_at <= now()
          AND (claimed_until IS NULL OR claimed_until < now()) AND NOT (id = ANY ($3::bigint[]))
        ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED),
     claimed AS (
       UPDATE webhook_deliveries d
          SET claimed_until = now() + $2 * interval '1 millisecond', attempts = d.attempts + 1
         FROM due WHERE d.id = due.id
       RETURNING d.id, d.webhook_id, d.account_id, d.type, d.body, d.attempts)
     SELECT c.*, s.webhook_url, s.webhook_secret
       FROM claimed c LEFT JOIN notification_settings s ON s.account_id = c.account_id AND s.webhook_enabled`,
    [limit, leaseMs, except],
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    webhookId: row.webhook_id,
    accountId: row.account_id,
    type: row.type,
    body: row.body,
    attempts: row.attempts,
    url: row.webhook_url ?? undefined,
    secret: row.webhook_secret ?? undefined,
  }));
}

/** One attempt's result, as the deliveries list shows it. */
export interface WebhookAttempt {
  accountId: number;
  webhookId: string;
  type: string;
  status: number | undefined;
  error: string | undefined;
  /** When the next attempt is due; undefined when none will be made (delivered, or given up). */
  nextRetryAt: Date | undefined;
  /** The URL attempted: `nextRetryAt` is listed only while the account's webhook is still enabled at it. */
  url?: string | undefined;
}

/** Attempts, and finished deliveries (bodies included), kept per account. */
export const WEBHOOK_HISTORY_KEPT = 50;

/**
 * Appends an attempt to the account's list, keeping its newest 50, and sweeps the account's
 * deliveries with the same retention: of those finished (delivered or given up), the newest 50
 * stay, and none finished in the last 24 hours goes (a redelivered event finds its row for as
 * long as the notifier remembers handled events at the least). Pending deliveries always stay. Its retry is listed only if
 * the webhook is still enabled at the attempted URL, read in the same statement under a share
 * lock: an attempt that ends while another disables the webhook (in its transaction) waits for
 * that commit and then lists no retry, since a disabled webhook gets none (CONTRACT §6.1).
 */
export async function recordWebhookAttempt(db: Queryable, attempt: WebhookAttempt): Promise<void> {
  await db.query(
    `WITH live AS (
       SELECT 1 FROM notification_settings WHERE account_id = $1 AND webhook_url = $7 AND webhook_enabled FOR SHARE)
     INSERT INTO webhook_attempts (account_id, webhook_id, type, response_status, error, next_retry_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN EXISTS (SELECT 1 FROM live) THEN $6::timestamptz END)`,
    [
      attempt.accountId,
      attempt.webhookId,
      attempt.type,
      attempt.status ?? null,
      attempt.error ?? null,
      attempt.nextRetryAt ?? null,
      attempt.url ?? null,
    ],
  );
  await db.query(
    `DELETE FROM webhook_attempts WHERE account_id = $1
        AND id < (SELECT id FROM webhook_attempts WHERE account_id = $1 ORDER BY id DESC OFFSET $2 - 1 LIMIT 1)`,
    [attempt.accountId, WEBHOOK_HISTORY_KEPT],
  );
  await db.query(
    `DELETE FROM webhook_deliveries WHERE account_id = $1
        AND coalesce(delivered_at, given_up_at) < now() - interval '24 hours'
        AND id < (SELECT id FROM webhook_deliveries WHERE account_id = $1 AND (delivered_at IS NOT NULL OR given_up_at IS NOT NULL)
                   ORDER BY id DESC OFFSET $2 - 1 LIMIT 1)`,
    [attempt.accountId, WEBHOOK_HISTORY_KEPT],
  );
}

/**
 * Ends a claimed attempt: delivered (never sent again), retried at `nextAttemptAt`, or given up
 * (`nextAttemptAt` undefined and not delivered).
 */
export async function finishWebhook(
  db: Queryable,
  id: number,
  outcome: { delivered: boolean; nextAttemptAt: Date | undefined },
): Promise<void> {
  if (outcome.delivered) {
    await db.query('UPDATE webhook_deliveries SET delivered_at = now(), claimed_until = NULL WHERE id = $1', [id]);
  } else if (outcome.nextAttemptAt) {
    await db.query('UPDATE webhook_deliveries SET next_attempt_at = $2, claimed_until = NULL WHERE id = $1 AND delivered_at IS NULL', [
      id,
      outcome.nextAttemptAt,
    ]);
  } else {
    await db.query('UPDATE webhook_deliveries SET given_up_at = now(), claimed_until = NULL WHERE id = $1 AND delivered_at IS NULL', [id]);
  }
}
