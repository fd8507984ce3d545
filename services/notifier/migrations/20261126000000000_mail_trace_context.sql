-- Up Migration
-- The W3C traceparent of the event handling that queued the e-mail (NULL when tracing is off):
-- the SMTP send continues the trace of the balance change that caused it.
ALTER TABLE notifier_mail_outbox ADD COLUMN traceparent text;

-- Down Migration
ALTER TABLE notifier_mail_outbox DROP COLUMN traceparent;
