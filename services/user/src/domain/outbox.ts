/**
 * An `outbox_events` row a relay has claimed for publishing. A row is one message (CONTRACT §6):
 * the events of one commit, in order (its `payload` holds the one event object, or the JSON
 * array of several).
 */
export interface ClaimedMessage {
  seq: number;
  /** The row's id: its first event's id. */
  id: string;
  routingKey: string;
  /** The message's events, in the order they were written (at least one). */
  events: unknown[];
  /** W3C traceparent of the request that wrote the events; null when tracing was off. */
  traceparent: string | null;
}

/** What the outbox relay needs of the outbox (store/outbox.ts). */
export interface OutboxStore {
  /** Claims up to `limit` unpublished messages (rows) for `leaseMs`, oldest first (by `seq`). */
  claim(limit: number, leaseMs: number): Promise<ClaimedMessage[]>;
  /** Marks confirmed messages published, in one statement. */
  markPublished(ids: readonly string[]): Promise<void>;
  /** Sets aside a message that can never be published (kept for an operator, never retried). */
  markFailed(id: string, error: string): Promise<void>;
  /** Gives claimed messages back at once, so that the next attempt (of any relay) starts with them. */
  release(ids: string[]): Promise<void>;
}
