-- Up Migration
-- Reservations of the usage API (CONTRACT §7.1): units held from a pool at once, then charged in
-- part (settle) or returned (release, or expiry). The ledger records the hold and the return as
-- causes of their own; the check is widened, never narrowed (expand only: a previous release
-- writes none of the new causes).
ALTER TABLE credit_ledger DROP CONSTRAINT credit_ledger_cause_check;
ALTER TABLE credit_ledger ADD CONSTRAINT credit_ledger_cause_known
  CHECK (cause IN ('usage', 'top-up', 'adjustment', 'hold', 'release'));

-- One row per reservation; its requestId makes the creation idempotent (a namespace of its own,
-- beside usage_requests). The answers of the creation and of the end are kept for replays.
CREATE TABLE usage_reservations (
  id uuid PRIMARY KEY,
  request_id text NOT NULL UNIQUE,
  request_digest text NOT NULL,
  account_id integer NOT NULL REFERENCES accounts (id),
  pool_id integer NOT NULL,
  product_id integer NOT NULL,
  units integer NOT NULL CHECK (units > 0),
  credits_after_hold bigint NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  state text NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'settled', 'released', 'expired')),
  charged integer,
  credits_after_end bigint,
  ended_at timestamptz
);
-- The expiry sweeper's scan, and verify-ledger's open holds per pool.
CREATE INDEX usage_reservations_due ON usage_reservations (expires_at) WHERE state = 'held';
CREATE INDEX usage_reservations_account ON usage_reservations (account_id, pool_id) WHERE state = 'held';

-- Down Migration
DROP TABLE usage_reservations;
ALTER TABLE credit_ledger DROP CONSTRAINT credit_ledger_cause_known;
ALTER TABLE credit_ledger ADD CONSTRAINT credit_ledger_cause_check CHECK (cause IN ('usage', 'top-up', 'adjustment'));
