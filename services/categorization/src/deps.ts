import type pg from 'pg';
import type { Logger } from '@platform/runtime';
import { keyRefusalExplainer, watchAccessRecords } from '@platform/accounts';
import {
  createCredentialVerifier,
  memoryFailureLimit,
  redisFailureLimit,
  type CredentialVerifier,
  type FailureLimit,
  type WatchedAccessStore,
} from '@platform/credentials';
import type { Adapters } from '@platform/infrastructure';
import { createCatalogCache, type CatalogCache } from './catalog/catalog-cache';
import type { CategorizationConfig } from './config';
import { createCategoryStore, type CategoryStore } from './store/category-store';

/** The adapters the categorization service runs on (openInfrastructure opens them; never URLs). */
export type CategorizationInfrastructure = Pick<Adapters, 'pool' | 'directPool' | 'redis'>;
export const CATEGORIZATION_NEEDS = ['pool', 'directPool', 'redis'] as const;

export interface CategorizationDeps {
  pool: pg.Pool;
  /** The access store (credential checks) with its loss detection: start() before serving. */
  watch: WatchedAccessStore;
  store: CategoryStore;
  catalog: CatalogCache;
  verifier: CredentialVerifier;
  /** Failed admin-token attempts per client address, on the access store's Redis (in memory when the store is the embedded one). */
  adminFailures: FailureLimit;
  logger: Logger;
  /** Stops the watch; the adapters are closed by whoever opened them. */
  close(): Promise<void>;
}

/** The service's parts over ready adapters; it opens no connection itself. */
export function createDeps(config: CategorizationConfig, logger: Logger, infrastructure: CategorizationInfrastructure): CategorizationDeps {
  const { pool, redis } = infrastructure;
  const limitOptions = { points: config.authFailuresPerIp, keyPrefix: `${config.redisKeyPrefix}rl:admin-fail` };
  const watch = watchAccessRecords(pool, redis, logger);
  const store = createCategoryStore(pool);
  return {
    pool,
    watch,
    store,
    catalog: createCatalogCache({ source: store, pollIntervalMs: config.refreshIntervalMs, logger }),
    verifier: createCredentialVerifier({ access: watch.store, explainKey: keyRefusalExplainer(pool) }),
    adminFailures: redis.client ? redisFailureLimit(redis.client, limitOptions) : memoryFailureLimit(limitOptions),
    logger,
    close() {
      watch.stop();
      return Promise.resolve();
    },
  };
}
