-- Up Migration
-- Every usage debit writes a ledger row, and each index of the ledger is one more entry per row.
-- (account_id, created_at) is read by no query any more: the usage history reads its own partial
-- index (credit_ledger_usage_history), the operator's ledger page (account_id, id).
DROP INDEX credit_ledger_account;

-- Down Migration
CREATE INDEX credit_ledger_account ON credit_ledger (account_id, created_at);
