-- Up Migration
-- One outbox row is one message on balance.events (CONTRACT §6): the events of one commit, its
-- `payload` the one event object or the JSON array of several (a usage batch's events, an
-- account created with several pools). Rows written before hold one event each and stay valid.
-- `id` is the row's first event's id. This view lists the events one per row, for an operator
-- looking for an event by id or account, and for the tests; it costs nothing until it is read.
CREATE VIEW outbox_event_list AS
SELECT o.seq,
       o.id AS message_id,
       (e.event->>'id')::uuid AS id,
       e.n AS position,
       o.routing_key,
       e.event AS payload,
       o.created_at,
       o.published_at,
       o.failed_at,
       o.claimed_until,
       o.traceparent
  FROM outbox_events o
 CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(o.payload) = 'array' THEN o.payload ELSE jsonb_build_array(o.payload) END)
       WITH ORDINALITY AS e(event, n);

-- Down Migration
DROP VIEW outbox_event_list;
