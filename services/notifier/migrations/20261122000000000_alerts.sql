-- Up Migration
-- The notifier owns these tables. It reads accounts.email, notification_settings and products
-- (user service) read-only and never references them by foreign key, so each service migrates
-- on its own.

-- Every event id handled once: a redelivered or republished event finds its id here and sends nothing.
CREATE TABLE notifier_processed_events (
  event_id uuid PRIMARY KEY,
  account_id integer NOT NULL,
  pool_id integer NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notifier_processed_events_age ON notifier_processed_events (processed_at);

-- Per (account, pool): whether each alert is armed, and the newest change seen (for ordering).
CREATE TABLE notifier_alert_state (
  account_id integer NOT NULL,
  pool_id integer NOT NULL,
  low_armed boolean NOT NULL DEFAULT true,
  zero_armed boolean NOT NULL DEFAULT true,
  last_occurred_at timestamptz,
  last_credits bigint,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, pool_id)
);

-- Mail outbox: alerts are written here in the transaction that decides them, then sent and
-- marked. Unsent rows are retried (after next_attempt_at) until SMTP accepts them. `queue` is
-- the event queue of the notifier deployment that decided the alert: the instances consuming
-- that queue share its e-mails (and separate deployments, e.g. parallel test runs, do not).
CREATE TABLE notifier_mail_outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  queue text NOT NULL,
  message_id text NOT NULL UNIQUE,
  event_id uuid NOT NULL,
  account_id integer NOT NULL,
  pool_id integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('low', 'zero')),
  recipient text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX notifier_mail_outbox_due ON notifier_mail_outbox (queue, next_attempt_at) WHERE sent_at IS NULL;
CREATE INDEX notifier_mail_outbox_account ON notifier_mail_outbox (account_id, pool_id);

-- Down Migration
DROP TABLE notifier_mail_outbox;
DROP TABLE notifier_alert_state;
DROP TABLE notifier_processed_events;
