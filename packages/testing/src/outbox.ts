import type { Pool } from 'pg';

export interface UnpublishedEvents {
  /** Events of the accounts not yet confirmed by the broker (their outbox rows unpublished). */
  pending: number;
  /** Of those, the ones a relay holds under a live claim: taken to be published, not confirmed. */
  claimed: number;
}

/**
 * What an outbox relay still owes for `accountIds` in the user service's outbox, read at the
 * moment a fault test cuts the broker away: the events it has not had confirmed. With `credits`,
 * only the events that leave a pool at that many credits (0: the zero crossings).
 */
export async function unpublishedEvents(pool: Pool, accountIds: number[], credits?: number): Promise<UnpublishedEvents> {
  const { rows } = await pool.query<UnpublishedEvents>(
    `SELECT count(*)::int AS pending, (count(*) FILTER (WHERE claimed_until > now()))::int AS claimed
       FROM outbox_event_list
      WHERE published_at IS NULL AND (payload->>'accountId')::int = ANY($1::int[])
        AND ($2::int IS NULL OR (payload->>'credits')::int = $2)`,
    [accountIds, credits ?? null],
  );
  return rows[0] ?? { pending: 0, claimed: 0 };
}
