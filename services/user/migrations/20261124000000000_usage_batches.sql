-- Up Migration
-- Usage debits are applied in batches (CONTRACT §9, revised). usage_requests keeps only the
-- answers of granted debits (a refused debit leaves no permanent row), for at least 24 hours:
-- rows expire by created_at (batched deletes). Like every user-owned table it carries the
-- account id; the answer is stored as plain columns so that a batch writes it with one
-- multi-row INSERT.
DELETE FROM usage_requests WHERE status <> 200;
ALTER TABLE usage_requests
  ADD COLUMN account_id integer,
  ADD COLUMN product_id integer,
  ADD COLUMN credits bigint;
UPDATE usage_requests
   SET account_id = (response->>'accountId')::integer,
       product_id = (response->>'productId')::integer,
       credits = (response->>'credits')::bigint;
ALTER TABLE usage_requests
  ALTER COLUMN account_id SET NOT NULL,
  ALTER COLUMN product_id SET NOT NULL,
  ALTER COLUMN credits SET NOT NULL,
  DROP COLUMN status,
  DROP COLUMN response;
CREATE INDEX usage_requests_expiry ON usage_requests (created_at);

-- Down Migration
DROP INDEX usage_requests_expiry;
ALTER TABLE usage_requests
  ADD COLUMN status integer NOT NULL DEFAULT 200,
  ADD COLUMN response jsonb NOT NULL DEFAULT '{}';
UPDATE usage_requests SET response = jsonb_build_object('accountId', account_id, 'productId', product_id, 'credits', credits);
ALTER TABLE usage_requests
  ALTER COLUMN status DROP DEFAULT,
  ALTER COLUMN response DROP DEFAULT,
  DROP COLUMN account_id,
  DROP COLUMN product_id,
  DROP COLUMN credits;
