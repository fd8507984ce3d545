import { createPool } from '@platform/db';
import { silentLogger } from '@platform/testing';

/** The largest outbox backlog seen while a load ran: events not yet published, and the rows (messages) holding them. */
export interface OutboxBacklog {
  events: number;
  messages: number;
}

// Reads both outbox layouts: a row of one event (before one message per commit) or of an array.
const PENDING = `
SELECT count(*)::int AS messages,
       coalesce(sum(CASE WHEN jsonb_typeof(payload) = 'array' THEN jsonb_array_length(payload) ELSE 1 END), 0)::int AS events
  FROM outbox_events WHERE published_at IS NULL AND failed_at IS NULL`;

/**
 * Samples the service's outbox every `everyMs` until stopped, on a connection of its own, and
 * answers the largest backlog: "bounded" means it stays near a few batches' events instead of
 * growing with the length of the load.
 */
export function sampleOutboxBacklog(databaseUrl: string, everyMs = 200): { stop(): Promise<OutboxBacklog> } {
  const pool = createPool({ connectionString: databaseUrl, logger: silentLogger(), max: 1 });
  const largest: OutboxBacklog = { events: 0, messages: 0 };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const row = (await pool.query<OutboxBacklog>(PENDING)).rows[0];
      largest.events = Math.max(largest.events, row?.events ?? 0);
      largest.messages = Math.max(largest.messages, row?.messages ?? 0);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await pool.end();
      return largest;
    },
  };
}
