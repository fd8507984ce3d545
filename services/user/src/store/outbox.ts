import type { Queryable } from '@platform/db';
import { currentTraceparent } from '@platform/runtime';
import { BALANCE_CHANGED, type BalanceChanged } from '@platform/events';
import type { ClaimedMessage, OutboxStore } from '../domain/outbox';

// Why one row per commit and not one per event (with a message id grouping rows): the usage API
// commits a batch of up to ~500 debits as one transaction with an event per pool it changed.
// One row is one heap tuple and one entry in each of the table's four indexes instead of one
// per event, and the relay's claim and mark each touch one row per message; the row is also
// exactly what the relay publishes, so the relay neither groups rows nor rebuilds messages. A
// single event is stored (and published) as the object, several as the array; a message
// larger than the relay's bound is split by the relay when it publishes (outbox-relay.ts).
/**
 * The outbox row (one message) of one commit's `balance.changed` events, as the values of
 * `(id, routing_key, payload, traceparent)`; undefined when there are none. The credit write
 * path (credit-writes.ts) writes it inside its one statement.
 */
export function outboxRow(events: readonly BalanceChanged[]): [string, string, string, string | null] | undefined {
  const [first] = events;
  if (!first) return undefined;
  const body = events.length === 1 ? first : events;
  return [first.id, BALANCE_CHANGED, JSON.stringify(body), currentTraceparent()];
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

/** Claims up to `limit` unpublished messages (rows) for `leaseMs`, oldest first (by `seq`). */
export async function claimPendingEvents(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedMessage[]> {
  const result = await db.query<{ seq: number; id: string; routing_key: string; payload: unknown; traceparent: string | null }>(CLAIM, [
    limit,
    leaseMs,
  ]);
  return result.rows
    .map((row) => ({
      seq: Number(row.seq),
      id: row.id,
      routingKey: row.routing_key,
      events: Array.isArray(row.payload) ? (row.payload as unknown[]) : [row.payload],
      traceparent: row.traceparent,
    }))
    .sort((a, b) => a.seq - b.seq);
}

/** Marks confirmed messages (rows) published, in one statement (one commit for a whole claimed batch). */
export async function markEventsPublished(db: Queryable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query('UPDATE outbox_events SET published_at = now(), claimed_until = NULL WHERE id = ANY($1::uuid[])', [ids]);
}

/** Sets aside a message that can never be published (kept for an operator, never retried). */
export async function markEventFailed(db: Queryable, id: string, error: string): Promise<void> {
  await db.query('UPDATE outbox_events SET failed_at = now(), last_error = $2, claimed_until = NULL WHERE id = $1', [id, error]);
}

/** Gives claimed messages back at once, so that the next attempt (of any relay) starts with them. */
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

/** Deletes up to `limit` messages (rows) published more than `retentionMs` ago; returns how many it deleted. */
export async function deletePublishedEvents(db: Queryable, retentionMs: number, limit: number): Promise<number> {
  const result = await db.query(DELETE_PUBLISHED, [retentionMs, limit]);
  return result.rowCount ?? 0;
}

/** Events not yet published (and not given up on), counted inside their messages: the backlog an operator alerts on. */
export async function countPendingEvents(db: Queryable): Promise<number> {
  const result = await db.query<{ pending: number }>(
    `SELECT coalesce(sum(CASE WHEN jsonb_typeof(payload) = 'array' THEN jsonb_array_length(payload) ELSE 1 END), 0)::int AS pending
       FROM outbox_events WHERE published_at IS NULL AND failed_at IS NULL`,
  );
  return result.rows[0]?.pending ?? 0;
}

/** The outbox relay's port on Postgres. */
export function createOutboxStore(db: Queryable): OutboxStore {
  return {
    claim: (limit, leaseMs) => claimPendingEvents(db, limit, leaseMs),
    markPublished: (ids) => markEventsPublished(db, ids),
    markFailed: (id, error) => markEventFailed(db, id, error),
    release: (ids) => releaseEvents(db, ids),
  };
}
