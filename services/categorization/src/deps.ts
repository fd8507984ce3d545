import type pg from 'pg';
import { ConfigError, type Logger } from '@platform/common';
import {
  connectRedis,
  createCredentialVerifier,
  createKeyDirectory,
  createRedisTokenStore,
  memoryFailureLimit,
  redisFailureLimit,
  type CredentialVerifier,
  type FailureLimit,
  type TokenStore,
} from '@platform/credentials';
import { createPool } from '@platform/db';
import { createCatalogCache, type CatalogCache } from './catalog/catalog-cache';
import type { CategorizationConfig } from './config';
import { createCategoryStore, type CategoryStore } from './store/category-store';

/** Connections opened elsewhere (the embedded quickstart, tests) and used as they are. */
export interface ProvidedDeps {
  pool?: pg.Pool;
  tokens?: TokenStore;
}

export interface CategorizationDeps {
  pool: pg.Pool;
  tokens: TokenStore;
  store: CategoryStore;
  catalog: CatalogCache;
  verifier: CredentialVerifier;
  /** Failed admin-token attempts per client address, on the same Redis as the tokens (memory when tokens are provided). */
  adminFailures: FailureLimit;
  logger: Logger;
  /** Closes only what createDeps opened. */
  close(): Promise<void>;
}

/** The only place that opens Postgres and Redis connections. */
export async function createDeps(config: CategorizationConfig, logger: Logger, provided: ProvidedDeps = {}): Promise<CategorizationDeps> {
  const missing = [
    ...(provided.pool || config.databaseUrl !== undefined ? [] : ['DATABASE_URL: Required']),
    ...(provided.tokens || config.redisUrl !== undefined ? [] : ['REDIS_URL: Required']),
  ];
  if (missing.length > 0) throw new ConfigError(`invalid configuration: ${missing.join('; ')}`);

  const closers: Array<() => Promise<void>> = [];
  let pool = provided.pool;
  if (!pool) {
    const opened = createPool({ connectionString: config.databaseUrl as string, logger });
    closers.push(() => opened.end());
    pool = opened;
  }
  let tokens = provided.tokens;
  const limitOptions = { points: config.authFailuresPerIp, keyPrefix: `${config.redisKeyPrefix}rl:admin-fail` };
  let adminFailures = memoryFailureLimit(limitOptions);
  if (!tokens) {
    const redis = await connectRedis(config.redisUrl as string, logger);
    const opened = createRedisTokenStore(redis, { keyPrefix: config.redisKeyPrefix });
    closers.push(() => opened.close());
    tokens = opened;
    adminFailures = redisFailureLimit(redis, limitOptions);
  }

  const store = createCategoryStore(pool);
  return {
    pool,
    tokens,
    store,
    catalog: createCatalogCache({ source: store, pollIntervalMs: config.refreshIntervalMs, logger }),
    verifier: createCredentialVerifier({ keys: createKeyDirectory(pool), tokens }),
    adminFailures,
    logger,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
