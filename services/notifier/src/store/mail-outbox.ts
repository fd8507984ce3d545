import { currentTraceparent } from '@platform/runtime';
import type { Queryable } from '@platform/db';
import type { MailKind } from '../domain/mail-kind';
import type { ClaimedMail, QueuedMail } from '../domain/notifier-store';

/** Queues an alert e-mail; the same Message-ID is queued only once. */
export async function enqueueMail(db: Queryable, mail: QueuedMail): Promise<void> {
  await db.query(
    `INSERT INTO notifier_mail_outbox (queue, message_id, event_id, account_id, pool_id, kind, recipient, subject, text_body, html_body, traceparent)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (message_id) DO NOTHING`,
    [
      mail.queue,
      mail.messageId,
      mail.eventId,
      mail.accountId,
      mail.poolId,
      mail.kind,
      mail.recipient,
      mail.subject,
      mail.text,
      mail.html,
      currentTraceparent(),
    ],
  );
}

interface OutboxRow {
  id: number;
  queue: string;
  message_id: string;
  event_id: string | null;
  account_id: number;
  pool_id: number | null;
  kind: MailKind;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  attempts: number;
  traceparent: string | null;
}

/**
 * Takes the oldest due e-mail and leases it for `leaseMs` (another notifier skips it meanwhile;
 * if this one dies, the lease runs out and the e-mail is due again).
 */
export async function claimDueMail(db: Queryable, queue: string, leaseMs: number): Promise<ClaimedMail | undefined> {
  const result = await db.query<OutboxRow>(
    `UPDATE notifier_mail_outbox
        SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $1::double precision / 1000)
      WHERE id = (SELECT id FROM notifier_mail_outbox
                   WHERE queue = $2 AND sent_at IS NULL AND next_attempt_at <= now()
                   ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id, queue, message_id, event_id, account_id, pool_id, kind, recipient, subject, text_body, html_body, attempts, traceparent`,
    [leaseMs, queue],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    id: Number(row.id),
    queue: row.queue,
    messageId: row.message_id,
    eventId: row.event_id,
    accountId: row.account_id,
    poolId: row.pool_id,
    kind: row.kind,
    recipient: row.recipient,
    subject: row.subject,
    text: row.text_body,
    html: row.html_body,
    attempts: row.attempts,
    traceparent: row.traceparent,
  };
}

export async function markSent(db: Queryable, id: number): Promise<void> {
  await db.query('UPDATE notifier_mail_outbox SET sent_at = now(), last_error = NULL WHERE id = $1', [id]);
}

export async function markFailed(db: Queryable, id: number, error: string, retryInMs: number): Promise<void> {
  await db.query(
    `UPDATE notifier_mail_outbox
        SET last_error = $2, next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
      WHERE id = $1 AND sent_at IS NULL`,
    [id, error.slice(0, 1000), retryInMs],
  );
}
