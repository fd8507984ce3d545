-- Up Migration
-- The one write of a credit change (store/credit-writes.ts), as a function: a PL/pgSQL function
-- keeps its statement's plan for the rest of the session, where the same statement sent as text
-- is parsed and planned again for every usage batch (a quarter of the batch's Postgres CPU,
-- docs/benchmarks.md). A plan kept by the server for its own function relies on no client's
-- session, so it holds behind a transaction-mode pooler, where a named prepared statement
-- does not (CONTRACT §1).
--
-- It writes, in one statement: the pools' new credits, one ledger row per entry (in the order of
-- the decisions), the entries' requestId answers (taken in key order, as the pools are locked in
-- key order; a requestId another open transaction holds waits for it and is then skipped if that
-- one committed it) and the commit's events as one outbox row (none when message_id is null).
-- Entries and pools arrive as JSON documents: one native JSON.stringify each on the service's
-- side, where a dozen arrays would cost the driver an escape per element.
--
-- expected_pools null: the caller locked the pools in its transaction and decided; returns how
-- many requestIds it took (fewer than asked: another transaction took some meanwhile). Otherwise
-- the call is its own transaction, decided on a read without locks or on kept credits: a pool is
-- updated only if it still holds its previousCredits (the UPDATE waits for a transaction holding
-- the row, then checks the row as that one left it), and unless exactly expected_pools pools and
-- expected_answers requestIds were taken, raise_changed_meanwhile fails the call (40001) and
-- nothing of it stays.
CREATE FUNCTION write_credit_changes(
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

-- Down Migration
DROP FUNCTION write_credit_changes(json, json, uuid, text, jsonb, text, integer, integer);
