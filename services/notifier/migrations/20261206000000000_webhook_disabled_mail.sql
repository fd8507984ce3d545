-- Up Migration
-- The mail outbox also carries the e-mail that says a webhook was disabled (CONTRACT §6.1): it
-- follows no balance event and concerns no pool, so those columns may be NULL for it.
ALTER TABLE notifier_mail_outbox DROP CONSTRAINT notifier_mail_outbox_kind_check;
ALTER TABLE notifier_mail_outbox ADD CONSTRAINT notifier_mail_outbox_kind_check CHECK (kind IN ('low', 'zero', 'webhook-disabled'));
ALTER TABLE notifier_mail_outbox ALTER COLUMN event_id DROP NOT NULL, ALTER COLUMN pool_id DROP NOT NULL;

-- Down Migration
DELETE FROM notifier_mail_outbox WHERE kind = 'webhook-disabled';
ALTER TABLE notifier_mail_outbox ALTER COLUMN event_id SET NOT NULL, ALTER COLUMN pool_id SET NOT NULL;
ALTER TABLE notifier_mail_outbox DROP CONSTRAINT notifier_mail_outbox_kind_check;
ALTER TABLE notifier_mail_outbox ADD CONSTRAINT notifier_mail_outbox_kind_check CHECK (kind IN ('low', 'zero'));
