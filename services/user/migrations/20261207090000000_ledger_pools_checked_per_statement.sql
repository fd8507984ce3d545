-- Up Migration
-- Every ledger row names a pool its account holds, checked once per statement instead of once
-- per row. The foreign key to accounts ran a query per ledger row, which also locked the
-- account's row (FOR KEY SHARE): in batches of 1,000 usage debits over 100 accounts, Postgres
-- spent 14-15 µs a debit with it and 12 without (docs/benchmarks.md, "The ledger's pools checked
-- per statement"). The check that replaces it is stricter (the pool, not only the account) and
-- reads all the statement's new rows in one join. What the foreign key's lock guarded against, a pool or an account deleted
-- while its ledger rows are written, no code does: no statement deletes from pool_balances or
-- accounts, and pool_balances' own foreign key keeps an account that holds a pool.
CREATE FUNCTION credit_ledger_pools_held() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM added a
              WHERE NOT EXISTS (SELECT 1 FROM pool_balances b WHERE b.account_id = a.account_id AND b.pool_id = a.pool_id)) THEN
    RAISE EXCEPTION 'a credit_ledger row names a pool that its account does not hold'
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER credit_ledger_pools_held AFTER INSERT ON credit_ledger
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION credit_ledger_pools_held();
ALTER TABLE credit_ledger DROP CONSTRAINT credit_ledger_account_id_fkey;

-- Down Migration
ALTER TABLE credit_ledger ADD CONSTRAINT credit_ledger_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
DROP TRIGGER credit_ledger_pools_held ON credit_ledger;
DROP FUNCTION credit_ledger_pools_held();
