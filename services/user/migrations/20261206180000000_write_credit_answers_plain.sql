-- Up Migration
-- write_credit_changes takes every requestId answer or fails: its insert into usage_requests has
-- no ON CONFLICT clause any more. A requestId that another transaction holds still waits for it;
-- if that one committed it, the statement now fails with unique_violation (23505) on
-- usage_requests_pkey instead of skipping the answer, and nothing of the call stays. Both callers
-- already treated a skipped answer as "decide again" (store/credit-writes.ts: a transaction rolls
-- back, RequestIdTaken; a write of its own is refused, as for 40001), so the outcome is the same.
-- An insert with ON CONFLICT probes the index before the insert and confirms the row after it (a
-- WAL record of its own): 8-10 % of the function's Postgres CPU for a batch of 100 debits over
-- 100 accounts (docs/benchmarks.md, "Batch debits at 32 connections").
CREATE OR REPLACE FUNCTION write_credit_changes(
  entries json,
  pools json,
  message_id uuid,
  message_routing_key text,
  message_payload jsonb,
  message_traceparent text,
  expected_pools integer,
  expected_answers integer
) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  taken_pools integer;
  taken_answers integer;
BEGIN
  WITH entry AS (
    SELECT *
      FROM ROWS FROM (json_to_recordset(entries) AS ("accountId" int, "poolId" int, "productId" int, delta bigint,
                                                     credits bigint, cause text, "requestId" text, digest text))
           WITH ORDINALITY AS g(account_id, pool_id, product_id, delta, credits, cause, request_id, digest, n)
  ), pool AS (
    UPDATE pool_balances b SET credits = v.credits, updated_at = now()
      FROM json_to_recordset(pools) AS v("accountId" int, "poolId" int, "previousCredits" bigint, credits bigint)
     WHERE b.account_id = v."accountId" AND b.pool_id = v."poolId"
       AND (expected_pools IS NULL OR b.credits = v."previousCredits")
    RETURNING 1
  ), ledger AS (
    INSERT INTO credit_ledger (account_id, pool_id, delta, credits_after, cause, request_id, product_id)
    SELECT account_id, pool_id, delta, credits, cause, request_id, product_id FROM entry ORDER BY n
  ), message AS (
    INSERT INTO outbox_events (id, routing_key, payload, traceparent)
    SELECT message_id, message_routing_key, message_payload, message_traceparent WHERE message_id IS NOT NULL
  ), answer AS (
    INSERT INTO usage_requests (request_id, account_id, request_digest, product_id, credits)
    SELECT request_id, account_id, digest, product_id, credits FROM entry WHERE request_id IS NOT NULL ORDER BY request_id
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM pool)::int, (SELECT count(*) FROM answer)::int INTO taken_pools, taken_answers;
  IF expected_pools IS NOT NULL AND (taken_pools <> expected_pools OR taken_answers <> expected_answers) THEN
    PERFORM raise_changed_meanwhile('a pool or a requestId');
  END IF;
  RETURN taken_answers;
END;
$$;

-- Down Migration
CREATE OR REPLACE FUNCTION write_credit_changes(
  entries json,
  pools json,
  message_id uuid,
  message_routing_key text,
  message_payload jsonb,
  message_traceparent text,
  expected_pools integer,
  expected_answers integer
) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  taken_pools integer;
  taken_answers integer;
BEGIN
  WITH entry AS (
    SELECT *
      FROM ROWS FROM (json_to_recordset(entries) AS ("accountId" int, "poolId" int, "productId" int, delta bigint,
                                                     credits bigint, cause text, "requestId" text, digest text))
           WITH ORDINALITY AS g(account_id, pool_id, product_id, delta, credits, cause, request_id, digest, n)
  ), pool AS (
    UPDATE pool_balances b SET credits = v.credits, updated_at = now()
      FROM json_to_recordset(pools) AS v("accountId" int, "poolId" int, "previousCredits" bigint, credits bigint)
     WHERE b.account_id = v."accountId" AND b.pool_id = v."poolId"
       AND (expected_pools IS NULL OR b.credits = v."previousCredits")
    RETURNING 1
  ), ledger AS (
    INSERT INTO credit_ledger (account_id, pool_id, delta, credits_after, cause, request_id, product_id)
    SELECT account_id, pool_id, delta, credits, cause, request_id, product_id FROM entry ORDER BY n
  ), message AS (
    INSERT INTO outbox_events (id, routing_key, payload, traceparent)
    SELECT message_id, message_routing_key, message_payload, message_traceparent WHERE message_id IS NOT NULL
  ), answer AS (
    INSERT INTO usage_requests (request_id, account_id, request_digest, product_id, credits)
    SELECT request_id, account_id, digest, product_id, credits FROM entry WHERE request_id IS NOT NULL ORDER BY request_id
    ON CONFLICT (request_id) DO NOTHING
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM pool)::int, (SELECT count(*) FROM answer)::int INTO taken_pools, taken_answers;
  IF expected_pools IS NOT NULL AND (taken_pools <> expected_pools OR taken_answers <> expected_answers) THEN
    PERFORM raise_changed_meanwhile('a pool or a requestId');
  END IF;
  RETURN taken_answers;
END;
$$;
