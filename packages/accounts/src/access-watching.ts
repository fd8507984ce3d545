import type { EventEmitter } from 'node:events';
import type pg from 'pg';
import { watchAccessStore, type AccessStore, type AccessWatchOptions, type WatchedAccessStore } from '@platform/credentials';
import { databaseIdentity } from '@platform/db';
import { reconcileAll } from './access-reconciler';

type Signals = Pick<EventEmitter, 'on' | 'off'>;

/**
 * Every service's watch of its access store (CONTRACT §3): a full reconciliation from this pool
 * when the Redis server is new to it, and at start also when the Postgres database is another one
 * than the store was last reconciled with (a restore; see databaseIdentity). `redis`: the store,
 * its client (absent for the memory store) and the loss signals to listen to (default: the client's).
 */
export function watchAccessRecords(
  pool: pg.Pool,
  redis: { access: AccessStore; client?: Signals | undefined; signals?: Signals | undefined },
  logger: AccessWatchOptions['logger'],
): WatchedAccessStore {
  const connection = redis.signals ?? redis.client;
  return watchAccessStore(redis.access, {
    reconcile: () => reconcileAll(pool, redis.access),
    sourceIdentity: () => databaseIdentity(pool),
    ...(connection ? { connection } : {}),
    logger,
  });
}
