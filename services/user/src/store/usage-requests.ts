import type { Queryable } from '@platform/db';

// Oldest first, through the created_at index; SKIP LOCKED lets the sweepers of several
// replicas share the work instead of queueing on each other's rows.
const DELETE_EXPIRED = `
DELETE FROM usage_requests
 WHERE request_id IN (
   SELECT request_id FROM usage_requests
    WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)
    ORDER BY created_at
    LIMIT $2
      FOR UPDATE SKIP LOCKED)`;

/** Deletes up to `limit` usage_requests rows older than `retentionMs`; returns how many it deleted. */
export async function deleteExpiredUsageRequests(db: Queryable, retentionMs: number, limit: number): Promise<number> {
  const result = await db.query(DELETE_EXPIRED, [retentionMs, limit]);
  return result.rowCount ?? 0;
}
