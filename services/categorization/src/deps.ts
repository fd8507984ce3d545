import type pg from 'pg';
import { ConfigError, type Logger } from '@platform/common';
import {
  connectRedis,
  createCredentialVerifier,
  createKeyDirectory,
  createRedisTokenStore,
  type CredentialVerifier,
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
  if (!tokens) {
    const opened = createRedisTokenStore(await connectRedis(config.redisUrl as string, logger), { keyPrefix: config.redisKeyPrefix });
    closers.push(() => opened.close());
    tokens = opened;
  }

  const store = createCategoryStore(pool);
  return {
    pool,
    tokens,
    store,
    catalog: createCatalogCache({ source: store, pollIntervalMs: config.refreshIntervalMs, logger }),
    verifier: createCredentialVerifier({ keys: createKeyDirectory(pool), tokens }),
    logger,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
