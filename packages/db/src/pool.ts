import pg from 'pg';
import type { Logger } from '@platform/runtime';

/** Anything that runs a parameterized query: a pool or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

export interface PoolOptions {
  connectionString: string;
  /** Embedded Postgres serves one connection at a time. */
  max?: number;
  /** How long an idle connection is kept (default 30 s). */
  idleTimeoutMs?: number;
  logger: Logger;
}

const INT8_OID = 20;

// Credits and ids are bigint in SQL but stay far below 2^53: read them as numbers, per pool
// (pg.types.setTypeParser would change every pool in the process).
const parseInt8 = (value: string): number => Number(value);
const typeParser: typeof pg.types.getTypeParser = ((oid: number, format?: 'text' | 'binary'): unknown =>
  oid === INT8_OID && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser;

/** A pool's most connections unless `max` says otherwise. */
export const DEFAULT_POOL_MAX = 10;

/** Opens a pg pool; idle-client errors are logged instead of crashing the process. */
export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    types: { getTypeParser: typeParser },
    max: options.max ?? DEFAULT_POOL_MAX,
    idleTimeoutMillis: options.idleTimeoutMs ?? 30_000,
    connectionTimeoutMillis: 5_000,
  });
  pool.on('error', (error) => options.logger.warn('postgres idle client error', { error: error.message }));
  return pool;
}

/**
 * Runs fn on a client checked out of the pool, and gives it back to the pool after a statement
 * the server refused: `pool.query` discards the connection of any query that fails, which for an
 * expected refusal (a serialization failure the caller handles) costs a new connection. (pg-pool
 * still discards a connection that broke: it is no longer queryable.)
 */
export async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A checked-out client whose connection drops between queries emits 'error'; unheard, that
  // crashes the process. The next query fails anyway; the broken client is discarded on release.
  let lost: Error | undefined;
  const onError = (error: Error): void => {
    lost = error;
  };
  client.on('error', onError);
  try {
    return await fn(client);
  } finally {
    client.off('error', onError);
    client.release(lost);
  }
}

/** Runs fn inside BEGIN/COMMIT on one client; rolls back and rethrows on any error. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/** Readiness check for a pool. */
export function pingPostgres(pool: pg.Pool): () => Promise<void> {
  return async () => {
    await pool.query('SELECT 1');
  };
}
