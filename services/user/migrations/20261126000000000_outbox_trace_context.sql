-- Up Migration
-- The W3C traceparent of the request that wrote the event (NULL when tracing is off): the
-- relay publishes the event as part of that trace, and the notifier continues it.
ALTER TABLE outbox_events ADD COLUMN traceparent text;

-- Down Migration
ALTER TABLE outbox_events DROP COLUMN traceparent;
