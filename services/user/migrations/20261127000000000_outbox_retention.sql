-- Up Migration
-- Published events are kept for OUTBOX_RETENTION_HOURS, then swept (oldest first) instead of
-- staying forever: the usage API writes about one event per debit of a busy account. A plain
-- CREATE INDEX: it holds off writes to the outbox while it builds, on a table of every event
-- published so far; the first sweep afterwards then deletes them in batches.
CREATE INDEX outbox_events_published ON outbox_events (published_at) WHERE published_at IS NOT NULL;

-- Down Migration
DROP INDEX outbox_events_published;
