-- Up Migration
-- Usage history (CONTRACT §4.6): per UTC day and product, the credits used through the usage API.
-- A pool is shared by several products, so the ledger records which product a usage debit was
-- for. Rows written before this column existed have none: the history counts them under the
-- pool's id (its lowest product id). Top-ups and adjustments leave it null.
ALTER TABLE credit_ledger ADD COLUMN product_id integer;

-- The history's one query reads an account's usage rows of a time range. A partial index holds
-- usage rows only (top-ups and adjustments are not usage), and carries the columns the query
-- sums, so the read is an index-only range scan of the account.
CREATE INDEX credit_ledger_usage_history ON credit_ledger (account_id, created_at)
  INCLUDE (product_id, pool_id, delta) WHERE cause = 'usage';

-- Down Migration
DROP INDEX credit_ledger_usage_history;
ALTER TABLE credit_ledger DROP COLUMN product_id;
