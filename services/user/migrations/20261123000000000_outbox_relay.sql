-- Up Migration
-- Outbox relay (CONTRACT §6). `seq` gives the relay a stable order: it is drawn when the row is
-- inserted, and changes of one pool are serialized by the pool row's lock, so a pool's events
-- are numbered in the order they committed (created_at is the transaction's start time and
-- can disagree with that order).
ALTER TABLE outbox_events ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_seq_unique UNIQUE (seq);
-- A relay claims a batch for a while (lease) instead of holding a transaction open while it
-- publishes; a relay that dies mid-batch leaves the claim to expire.
ALTER TABLE outbox_events ADD COLUMN claimed_until timestamptz;
-- An event the bus refuses as invalid can never be published: it is set aside, not retried.
ALTER TABLE outbox_events ADD COLUMN failed_at timestamptz;
ALTER TABLE outbox_events ADD COLUMN last_error text;

DROP INDEX outbox_events_pending;
CREATE INDEX outbox_events_pending ON outbox_events (seq) WHERE published_at IS NULL AND failed_at IS NULL;

-- Down Migration
DROP INDEX outbox_events_pending;
CREATE INDEX outbox_events_pending ON outbox_events (created_at) WHERE published_at IS NULL;
ALTER TABLE outbox_events DROP COLUMN last_error;
ALTER TABLE outbox_events DROP COLUMN failed_at;
ALTER TABLE outbox_events DROP COLUMN claimed_until;
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_seq_unique;
ALTER TABLE outbox_events DROP COLUMN seq;
