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
  /**
   * Request budgets (REQUEST_TIMEOUTS) instead of the defaults, which suit migrations, tools and
   * tests: no query timeout, 5 s to get a connection.
   */
  requestTimeouts?: boolean;
  logger: Logger;
}

/**
 * The Postgres share of a request's 5 s (CONTRACT §1, docs/operations.md "Timeouts"): a
 * connection out of the pool (a free one, or a new one connected and logged in) within
 * `checkoutMs`, each statement answered within `queryMs`. A request stalls on one of them at
 * most: its first failure answers 503. Larger than pgbouncer's query_wait_timeout (2 s), so a
 * pooler without a server answers first, with its own error.
 */
export const REQUEST_TIMEOUTS = { checkoutMs: 1000, queryMs: 2500 } as const;

/** Server-side statement_timeout inside a request pool's transactions: before the client's queryMs. */
const STATEMENT_TIMEOUT_MS = REQUEST_TIMEOUTS.queryMs - 500;

/** TCP keepalive: a pooled connection whose server vanished (a partition) is found and dropped while idle. */
const KEEPALIVE_DELAY_MS = 5000;

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
    connectionTimeoutMillis: options.requestTimeouts ? REQUEST_TIMEOUTS.checkoutMs : 5_000,
    // Client-side: the statement's answer, however the server or the network fails to send it.
    ...(options.requestTimeouts ? { query_timeout: REQUEST_TIMEOUTS.queryMs } : {}),
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
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
  } catch (error) {
    // A statement that timed out is still running on the connection (or its server is gone): the
    // connection is discarded, never handed to the next request behind that statement.
    if (isQueryTimeout(error)) lost ??= error;
    throw error;
  } finally {
    client.off('error', onError);
    client.release(lost);
  }
}

/** node-postgres' own error when `query_timeout` passed without an answer. */
export function isQueryTimeout(error: unknown): error is Error {
  return error instanceof Error && error.message === 'Query read timeout';
}

/** Runs fn inside BEGIN/COMMIT on one client; rolls back and rethrows on any error. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  // On a request pool the server gives up on a statement (a lock wait) a little before the
  // client would (57014, a 503): its locks go at once, and the connection stays usable. In the
  // BEGIN's round trip; SET LOCAL keeps nothing in the session (a pooler in transaction mode).
  const begin = pool.options.query_timeout ? `BEGIN; SET LOCAL statement_timeout = ${STATEMENT_TIMEOUT_MS}` : 'BEGIN';
  return withClient(pool, async (client) => {
    try {
      await client.query(begin);
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // After a query timeout the connection is discarded (withClient): a ROLLBACK would only
      // queue behind the statement that did not answer. The server rolls back when it closes.
      if (!isQueryTimeout(error)) await client.query('ROLLBACK').catch(() => undefined);
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
