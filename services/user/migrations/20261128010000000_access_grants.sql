-- Up Migration
-- Access grants waiting for Redis. A change that opens access (credits from 0, a new key) writes
-- its account here in its own transaction; after its COMMIT the service rewrites the account's
-- access records from Postgres and deletes the row. A process killed in between leaves the row,
-- and the grant sweeper (at start and every ACCESS_GRANT_SWEEP_MS) finishes it, so Redis catches
-- up with Postgres without a Redis restart (docs/architecture.md, "Redis follows Postgres").
CREATE TABLE access_grants_pending (
  account_id integer PRIMARY KEY REFERENCES accounts (id),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE access_grants_pending;
