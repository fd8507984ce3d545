-- Up Migration
-- The user service owns every table here. Other services read api_keys, accounts and
-- pool_balances (credential checks) and never write them.

-- Product catalogue (CONTRACT §5). pool_id is the lowest product id of the product's credit
-- pool: 1 for the lookup pool {1, 24}, 14 for the research pool, the product's own id otherwise.
CREATE TABLE products (
  id integer PRIMARY KEY,
  name text NOT NULL,
  pool_id integer NOT NULL
);

INSERT INTO products (id, name, pool_id) VALUES
  (1, 'WHOIS API', 1),
  (7, 'Email Verification API', 7),
  (8, 'IP Geolocation API', 8),
  (12, 'IP Geolocation API on IPIFY', 12),
  (13, 'IP Netblocks WHOIS Database', 13),
  (14, 'Domain Research Suite', 14),
  (19, 'IP Geolocation Data Feed', 19),
  (20, 'Domain Reputation API', 20),
  (21, 'Website Categorization API', 21),
  (22, 'DNS Database Download', 22),
  (23, 'IP Netblocks API', 23),
  (24, 'Bulk WHOIS API', 1),
  (25, 'Domain Availability API', 25),
  (26, 'DNS Lookup API', 26),
  (27, 'Screenshot API', 14),
  (28, 'Website Contacts & Categorization Database', 28),
  (29, 'Website Contacts API', 29),
  (34, 'Newly Registered Domains', 34),
  (35, 'Daily Website Contacts & Categorization', 35),
  (37, 'Disposable Email Domains', 37),
  (38, 'All Registered Domains', 38),
  (39, 'Real-time Domain Registration Streaming', 39),
  (40, 'Threat Intelligence Data Feeds', 40),
  (41, 'Typosquatting Data Feed', 41),
  (47, 'Subdomains Data Feed', 47),
  (50, 'Newly Created Websites Data Feed', 50),
  (55, 'Newly Registered Domains 2.0', 55),
  (57, 'MAC Address API', 57),
  (60, 'SSL Certificates Database', 60),
  (61, 'SSL Certificates API', 61),
  (63, 'Newly Registered Country Domains', 63),
  (101, 'Brand Alert API', 14),
  (102, 'Registrant Alert API', 14),
  (103, 'Reverse WHOIS API', 14),
  (104, 'WHOIS History API', 14),
  (105, 'Reverse IP API', 14),
  (106, 'Reverse MX API', 14),
  (107, 'Reverse NS API', 14),
  (108, 'Subdomains Lookup API', 14),
  (109, 'Domains & Subdomains Discovery API', 14);

CREATE TABLE accounts (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email text NOT NULL,
  -- Bumped (in step with Redis) by every key regeneration; tokens minted under an older
  -- generation are refused (CONTRACT §3).
  key_generation bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_email_unique ON accounts (lower(email));

-- API keys are stored only as SHA-256 hex digests; at most one active key per account.
CREATE TABLE api_keys (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts (id),
  key_hash text NOT NULL UNIQUE,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  deactivated_at timestamptz
);
CREATE UNIQUE INDEX api_keys_one_active ON api_keys (account_id) WHERE active;

-- One row per pool the account holds; holding a pool means holding every product in it.
CREATE TABLE pool_balances (
  account_id integer NOT NULL REFERENCES accounts (id),
  pool_id integer NOT NULL,
  credits bigint NOT NULL CHECK (credits >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, pool_id)
);

-- Append-only record of every credit change.
CREATE TABLE credit_ledger (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts (id),
  pool_id integer NOT NULL,
  delta bigint NOT NULL,
  credits_after bigint NOT NULL CHECK (credits_after >= 0),
  cause text NOT NULL CHECK (cause IN ('usage', 'top-up', 'adjustment')),
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_ledger_account ON credit_ledger (account_id, created_at);

CREATE FUNCTION credit_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'credit_ledger is append-only';
END;
$$;
CREATE TRIGGER credit_ledger_no_update BEFORE UPDATE OR DELETE ON credit_ledger
  FOR EACH ROW EXECUTE FUNCTION credit_ledger_append_only();

-- Idempotency of the internal usage API: the first answer to a requestId is replayed.
CREATE TABLE usage_requests (
  request_id text PRIMARY KEY,
  request_digest text NOT NULL,
  status integer NOT NULL,
  response jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Transactional outbox: written in the same transaction as the balance change, published by the relay.
CREATE TABLE outbox_events (
  id uuid PRIMARY KEY,
  routing_key text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
CREATE INDEX outbox_events_pending ON outbox_events (created_at) WHERE published_at IS NULL;

-- Absent row: the real defaults (low alert on at 10, zero alert on).
CREATE TABLE notification_settings (
  account_id integer PRIMARY KEY REFERENCES accounts (id),
  low_balance_enabled boolean NOT NULL DEFAULT true,
  low_balance_threshold integer NOT NULL DEFAULT 10 CHECK (low_balance_threshold BETWEEN 0 AND 1000000000),
  zero_balance_enabled boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE notification_settings;
DROP TABLE outbox_events;
DROP TABLE usage_requests;
DROP TABLE credit_ledger;
DROP FUNCTION credit_ledger_append_only;
DROP TABLE pool_balances;
DROP TABLE api_keys;
DROP TABLE accounts;
DROP TABLE products;
