-- Up Migration
-- The retention sweeper deletes sent e-mails oldest first (notifier_processed_events already
-- has its age index).
CREATE INDEX notifier_mail_outbox_sent ON notifier_mail_outbox (sent_at) WHERE sent_at IS NOT NULL;

-- Down Migration
DROP INDEX notifier_mail_outbox_sent;
