import type { Redis } from 'ioredis';
import type pg from 'pg';
import { ConfigError, type Logger } from '@platform/common';
import { reconcileAll } from '@platform/accounts';
import {
  closeRedis,
  connectRedis,
  createCredentialVerifier,
  createRedisAccessStore,
  memoryFailureLimit,
  redisFailureLimit,
  watchAccessStore,
  type AccessStore,
  type CredentialVerifier,
  type FailureLimit,
  type WatchedAccessStore,
} from '@platform/credentials';
import { createPool } from '@platform/db';
import { createCatalogCache, type CatalogCache } from './catalog/catalog-cache';
import type { CategorizationConfig } from './config';
import { createCategoryStore, type CategoryStore } from './store/category-store';

/** Connections opened elsewhere (the embedded quickstart, tests) and used as they are. */
export interface ProvidedDeps {
  pool?: pg.Pool;
  /** The access store of the process (the memory one, embedded). */
  access?: AccessStore;
}

export interface CategorizationDeps {
  pool: pg.Pool;
  /** The access store (credential checks) with its loss detection: start() before serving. */
  watch: WatchedAccessStore;
  store: CategoryStore;
  catalog: CatalogCache;
  verifier: CredentialVerifier;
  /** Failed admin-token attempts per client address, on the access store's Redis (memory when the store is provided). */
  adminFailures: FailureLimit;
  logger: Logger;
  /** Closes only what createDeps opened. */
  close(): Promise<void>;
}

/** The only place that opens Postgres and Redis connections. */
export async function createDeps(config: CategorizationConfig, logger: Logger, provided: ProvidedDeps = {}): Promise<CategorizationDeps> {
  const missing = [
    ...(provided.pool || config.databaseUrl !== undefined ? [] : ['DATABASE_URL: Required']),
    ...(provided.access || config.redisUrl !== undefined ? [] : ['REDIS_URL: Required']),
  ];
  if (missing.length > 0) throw new ConfigError(`invalid configuration: ${missing.join('; ')}`);

  const closers: Array<() => Promise<void>> = [];
  let pool = provided.pool;
  if (!pool) {
    const opened = createPool({ connectionString: config.databaseUrl as string, logger });
    closers.push(() => opened.end());
    pool = opened;
  }
  let inner = provided.access;
  let redis: Redis | undefined;
  const limitOptions = { points: config.authFailuresPerIp, keyPrefix: `${config.redisKeyPrefix}rl:admin-fail` };
  let adminFailures = memoryFailureLimit(limitOptions);
  if (!inner) {
    const client = await connectRedis(config.redisUrl as string, logger);
    closers.push(() => closeRedis(client));
    redis = client;
    inner = createRedisAccessStore(client, { keyPrefix: config.redisKeyPrefix });
    adminFailures = redisFailureLimit(client, limitOptions);
  }
  const source = pool;
  const access = inner;
  const watch = watchAccessStore(access, {
    reconcile: () => reconcileAll(source, access),
    ...(redis ? { connection: redis } : {}),
    logger,
  });
  closers.push(() => Promise.resolve(watch.stop()));

  const store = createCategoryStore(pool);
  return {
    pool,
    watch,
    store,
    catalog: createCatalogCache({ source: store, pollIntervalMs: config.refreshIntervalMs, logger }),
    verifier: createCredentialVerifier({ access: watch.store }),
    adminFailures,
    logger,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
