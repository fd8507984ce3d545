-- Up Migration
-- The operator's admin API (CONTRACT §7): disabled accounts, who changed a balance, the audit
-- log, and the indexes that keep an account search fast at a million accounts.

-- A disabled account keeps its key row but not active (so every reader that checks `active`
-- refuses it, reconciliation included); enabling makes its latest key active again.
ALTER TABLE accounts ADD COLUMN disabled boolean NOT NULL DEFAULT false;

-- Who made a balance change: the admin token's name for top-ups and adjustments, null for usage.
-- The writers set it per transaction (set_config('platform.actor', …, true)) so that every
-- INSERT into the ledger, whichever store writes it, records it without naming it.
ALTER TABLE credit_ledger ADD COLUMN actor text;
ALTER TABLE credit_ledger ALTER COLUMN actor SET DEFAULT nullif(current_setting('platform.actor', true), '');
-- The ledger page of one account, newest first.
CREATE INDEX credit_ledger_account_id ON credit_ledger (account_id, id);

-- Every admin write and every key rotation, written in the transaction of the change.
CREATE TABLE admin_audit (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  actor text NOT NULL,
  action text NOT NULL,
  account_id integer REFERENCES accounts (id),
  details jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX admin_audit_account ON admin_audit (account_id, id);

CREATE FUNCTION admin_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'admin_audit is append-only';
END;
$$;
CREATE TRIGGER admin_audit_no_update BEFORE UPDATE OR DELETE ON admin_audit
  FOR EACH ROW EXECUTE FUNCTION admin_audit_append_only();

-- Search by a substring of the e-mail: a trigram index (exact e-mails use accounts_email_unique,
-- ids the primary key). pg_trgm ships with Postgres (contrib) and is a trusted extension.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX accounts_email_trgm ON accounts USING gin (lower(email) gin_trgm_ops);

-- Down Migration
DROP INDEX accounts_email_trgm;
DROP TABLE admin_audit;
DROP FUNCTION admin_audit_append_only;
DROP INDEX credit_ledger_account_id;
ALTER TABLE credit_ledger DROP COLUMN actor;
ALTER TABLE accounts DROP COLUMN disabled;
