-- Up Migration
-- CONTRACT §6, §6.1: where alert e-mails go (NULL: the account's e-mail) and the balance webhook.
-- The signing secret is kept as it was shown once: the sender needs it to sign every delivery.
ALTER TABLE notification_settings
  ADD COLUMN alert_email text,
  ADD COLUMN webhook_url text,
  ADD COLUMN webhook_enabled boolean NOT NULL DEFAULT true,
  ADD COLUMN webhook_secret text;

-- The delivery queue: one row per webhook event, written by the notifier in the transaction that
-- decides the crossing (the same as the e-mails). Deliverers claim due rows with FOR UPDATE SKIP
-- LOCKED and a lease (claimed_until), so that replicas never send one row at once; a row marked
-- delivered is never sent again. The target and secret are read from the settings at each attempt.
CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id text NOT NULL UNIQUE,
  account_id integer NOT NULL,
  type text NOT NULL,
  body text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  claimed_until timestamptz,
  delivered_at timestamptz,
  given_up_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE delivered_at IS NULL AND given_up_at IS NULL;
CREATE INDEX webhook_deliveries_account ON webhook_deliveries (account_id);

-- Every attempt, for GET /user-service/webhook-deliveries (the account's last 50 are kept).
CREATE TABLE webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id integer NOT NULL,
  webhook_id text NOT NULL,
  type text NOT NULL,
  attempted_at timestamptz NOT NULL DEFAULT now(),
  response_status integer,
  error text,
  next_retry_at timestamptz
);
CREATE INDEX webhook_attempts_account ON webhook_attempts (account_id, id DESC);

-- Down Migration
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
ALTER TABLE notification_settings
  DROP COLUMN webhook_secret,
  DROP COLUMN webhook_enabled,
  DROP COLUMN webhook_url,
  DROP COLUMN alert_email;
