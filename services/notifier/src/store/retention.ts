import type { Queryable } from '@platform/db';

// Oldest first, through the age index; SKIP LOCKED lets the sweepers of several replicas share
// the work. A processed event's row is what stops a redelivery from sending twice, so it is
// kept longer than any redelivery or republish can come (NOTIFIER_PROCESSED_EVENT_RETENTION_HOURS).
const DELETE_PROCESSED = `
DELETE FROM notifier_processed_events
 WHERE event_id IN (
   SELECT event_id FROM notifier_processed_events
    WHERE processed_at < now() - make_interval(secs => $1::double precision / 1000)
    ORDER BY processed_at
    LIMIT $2
      FOR UPDATE SKIP LOCKED)`;

// Only e-mails SMTP accepted: an unsent one stays until it is sent, however old.
const DELETE_SENT_MAIL = `
DELETE FROM notifier_mail_outbox
 WHERE id IN (
   SELECT id FROM notifier_mail_outbox
    WHERE sent_at < now() - make_interval(secs => $1::double precision / 1000)
    ORDER BY sent_at
    LIMIT $2
      FOR UPDATE SKIP LOCKED)`;

/** Deletes up to `limit` processed-event ids older than `retentionMs`; returns how many. */
export async function deleteProcessedEvents(db: Queryable, retentionMs: number, limit: number): Promise<number> {
  const result = await db.query(DELETE_PROCESSED, [retentionMs, limit]);
  return result.rowCount ?? 0;
}

/** Deletes up to `limit` e-mails sent more than `retentionMs` ago; returns how many. */
export async function deleteSentMail(db: Queryable, retentionMs: number, limit: number): Promise<number> {
  const result = await db.query(DELETE_SENT_MAIL, [retentionMs, limit]);
  return result.rowCount ?? 0;
}
