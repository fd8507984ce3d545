import { currentTraceparent } from '@platform/runtime';
import type { Queryable } from '@platform/db';
import { BALANCE_CHANGED, type BalanceChanged } from '@platform/events';

const INSERT_EVENTS = `
INSERT INTO outbox_events (id, routing_key, payload, traceparent)
SELECT (e.payload->>'id')::uuid, $1, e.payload, $3 FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(payload, n) ORDER BY n`;

/**
 * Appends a commit's `balance.changed` events to the outbox, in order, in the caller's
 * transaction (CONTRACT §6). Called only by the credit write path (store/credit-writes.ts).
 */
export async function insertOutboxEvents(db: Queryable, events: readonly BalanceChanged[]): Promise<void> {
  if (events.length === 0) return;
  await db.query({
    text: INSERT_EVENTS,
    values: [BALANCE_CHANGED, JSON.stringify(events), currentTraceparent()],
  });
}

/** An `outbox_events` row a relay has claimed for publishing. */
export interface ClaimedEvent {
  seq: number;
  id: string;
  routingKey: string;
  payload: unknown;
  /** W3C traceparent of the request that wrote the event; null when tracing was off. */
  traceparent: string | null;
}

// One statement, no transaction left open: the claim is a lease (claimed_until), so a relay
// never holds a connection while it waits for the broker (the embedded quickstart shares one
// connection between all services), and replicas skip each other's rows.
const CLAIM = `
WITH next AS (
  SELECT seq FROM outbox_events
   WHERE published_at IS NULL AND failed_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
   ORDER BY seq
   LIMIT $1
   FOR UPDATE SKIP LOCKED
)
UPDATE outbox_events o SET claimed_until = now() + make_interval(secs => $2::double precision / 1000)
  FROM next
 WHERE o.seq = next.seq
RETURNING o.seq, o.id, o.routing_key, o.payload, o.traceparent`;

/** Claims up to `limit` unpublished events for `leaseMs`, oldest first (by `seq`). */
export async function claimPendingEvents(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedEvent[]> {
  const result = await db.query<{ seq: number; id: string; routing_key: string; payload: unknown; traceparent: string | null }>(CLAIM, [
    limit,
    leaseMs,
  ]);
  return result.rows
    .map((row) => ({ seq: Number(row.seq), id: row.id, routingKey: row.routing_key, payload: row.payload, traceparent: row.traceparent }))
    .sort((a, b) => a.seq - b.seq);
}

/** Marks confirmed events published, in one statement (one commit for a whole claimed batch). */
export async function markEventsPublished(db: Queryable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query('UPDATE outbox_events SET published_at = now(), claimed_until = NULL WHERE id = ANY($1::uuid[])', [ids]);
}

/** Sets aside an event that can never be published (kept for an operator, never retried). */
export async function markEventFailed(db: Queryable, id: string, error: string): Promise<void> {
  await db.query('UPDATE outbox_events SET failed_at = now(), last_error = $2, claimed_until = NULL WHERE id = $1', [id, error]);
}

/** Gives claimed events back at once, so that the next attempt (of any relay) starts with them. */
export async function releaseEvents(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query('UPDATE outbox_events SET claimed_until = NULL WHERE id = ANY($1::uuid[]) AND published_at IS NULL', [ids]);
}

// Oldest first, through the published_at index; SKIP LOCKED lets the sweepers of several
// replicas share the work. Only published rows: pending and failed ones stay.
const DELETE_PUBLISHED = `
DELETE FROM outbox_events
 WHERE seq IN (
   SELECT seq FROM outbox_events
    WHERE published_at < now() - make_interval(secs => $1::double precision / 1000)
    ORDER BY published_at
    LIMIT $2
      FOR UPDATE SKIP LOCKED)`;

/** Deletes up to `limit` events published more than `retentionMs` ago; returns how many it deleted. */
export async function deletePublishedEvents(db: Queryable, retentionMs: number, limit: number): Promise<number> {
  const result = await db.query(DELETE_PUBLISHED, [retentionMs, limit]);
  return result.rowCount ?? 0;
}

/** Events not yet published (and not given up on): the backlog an operator alerts on. */
export async function countPendingEvents(db: Queryable): Promise<number> {
  const result = await db.query<{ pending: number }>(
    'SELECT count(*)::int AS pending FROM outbox_events WHERE published_at IS NULL AND failed_at IS NULL',
  );
  return result.rows[0]?.pending ?? 0;
}
