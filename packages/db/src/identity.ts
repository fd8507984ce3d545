import type { Queryable } from './pool';

// pg_control_system() and pg_control_checkpoint() are executable by every role (no grant needed).
const IDENTITY = `
SELECT s.system_identifier::text AS system, c.timeline_id AS timeline, d.oid::text AS database
  FROM pg_control_system() s, pg_control_checkpoint() c, pg_database d
 WHERE d.datname = current_database()`;

/**
 * Which Postgres database this is, as a restore changes it (CONTRACT §3: a restore to an earlier
 * point is a loss, seen from Redis): `<system_identifier>:<timeline>:<database oid>`. A dump
 * restored into a fresh database has another oid, a new server another system identifier, and a
 * point-in-time recovery (or a failover to a replica, which may lack the last commits) another
 * timeline (as of the checkpoint that ends the recovery). A restore into the same database over
 * its own tables changes none of them: the restore procedure reconciles explicitly
 * (`pnpm admin reconcile --all`).
 */
export async function databaseIdentity(db: Queryable): Promise<string> {
  const result = await db.query<{ system: string; timeline: number; database: string }>(IDENTITY);
  const row = result.rows[0];
  if (!row) throw new Error('Postgres did not say which database it is');
  return `${row.system}:${row.timeline}:${row.database}`;
}
