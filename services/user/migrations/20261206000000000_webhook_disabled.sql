-- Up Migration
-- CONTRACT §6.1: the service disables a webhook whose receiver answered 410 Gone ('gone') or whose
-- deliveries have all failed for 5 days ('failing'). webhook_failing_since is the first failed
-- attempt since the last delivered one (NULL while deliveries succeed); setting the webhook again
-- clears both. Nullable columns only: the previous release's services ignore them.
ALTER TABLE notification_settings
  ADD COLUMN webhook_disabled_reason text CHECK (webhook_disabled_reason IN ('gone', 'failing')),
  ADD COLUMN webhook_failing_since timestamptz;

-- Down Migration
ALTER TABLE notification_settings
  DROP COLUMN webhook_failing_since,
  DROP COLUMN webhook_disabled_reason;
