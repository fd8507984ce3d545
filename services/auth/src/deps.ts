import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import { ConfigError, type Logger, type ReadinessCheck } from '@platform/common';
import {
  closeRedis,
  connectRedis,
  createKeyDirectory,
  createRedisTokenStore,
  type KeyDirectory,
  type TokenStore,
} from '@platform/credentials';
import { createPool, pingPostgres } from '@platform/db';
import type { AuthConfig } from './config';
import { createAttemptLimits, type AttemptLimits, type WindowCounter } from './domain/attempt-limits';
import type { IssuanceGate, IssuanceKeys } from './domain/issue-token';
import { redisIssuanceGate } from './store/issuance-gate';
import { createIssuanceKeys } from './store/issuance-keys';
import { guardKeyDirectory, guardTokenStore } from './store/unavailable';
import { isRedisCounter, memoryWindowCounter, redisWindowCounter, type WindowOptions } from './store/window-counters';

/** What the embedded quickstart (or a test) hands in instead of opening connections. */
export interface ProvidedDeps {
  pool?: Pool;
  /** A token store shared with the other services of the process (the memory one, embedded). */
  tokens?: TokenStore;
  /** `memory` with the memory token store; default: `redis` when REDIS_URL is set. */
  limiterBackend?: 'memory' | 'redis';
  /** Milliseconds since the epoch (tests). */
  now?: () => number;
}

export interface AuthDeps {
  logger: Logger;
  /** Uncached key reads (introspection and revocation callers). */
  keys: KeyDirectory;
  /** Key reads for issuance (short cache, locked re-read). */
  issuanceKeys: IssuanceKeys;
  /** Issuance's Redis steps in one round trip, when the limits and the token store share the Redis opened here. */
  issuanceGate?: IssuanceGate;
  tokens: TokenStore;
  limits: AttemptLimits;
  now: () => number;
  readiness: Record<string, ReadinessCheck>;
  /** Closes only what createDeps opened. */
  close(): Promise<void>;
}

const WINDOW_SECONDS = 60;

/** The only place the auth service opens connections (Postgres pool, one Redis client). */
export async function createDeps(config: AuthConfig, logger: Logger, provided: ProvidedDeps = {}): Promise<AuthDeps> {
  const closers: Array<() => Promise<void>> = [];
  const now = provided.now ?? Date.now;

  let pool = provided.pool;
  if (!pool) {
    if (config.databaseUrl === undefined) throw new ConfigError('invalid configuration: DATABASE_URL: Required');
    const opened = createPool({ connectionString: config.databaseUrl, logger });
    closers.push(() => opened.end());
    pool = opened;
  }

  const backend = provided.limiterBackend ?? (config.redisUrl !== undefined ? 'redis' : 'memory');
  let redis: Redis | undefined;
  if (config.redisUrl !== undefined && (!provided.tokens || backend === 'redis')) {
    redis = await connectRedis(config.redisUrl, logger);
  }

  let tokens = provided.tokens;
  // The store opened here, on the same Redis (and prefix) as the limit counters below.
  let ownRedisStore = false;
  if (!tokens) {
    if (!redis) throw new ConfigError('invalid configuration: REDIS_URL: Required');
    const opened = createRedisTokenStore(redis, { keyPrefix: config.redisKeyPrefix });
    closers.push(() => opened.close());
    tokens = opened;
    ownRedisStore = true;
  } else if (redis) {
    const client = redis;
    closers.push(() => closeRedis(client));
  }

  const window = (name: string, points: number): WindowOptions => ({
    keyPrefix: `${config.redisKeyPrefix}rl:${name}`,
    points,
    durationSeconds: WINDOW_SECONDS,
  });
  const counter = (options: WindowOptions): WindowCounter => {
    if (backend === 'memory') return memoryWindowCounter(options);
    if (!redis) throw new ConfigError('invalid configuration: REDIS_URL: Required');
    return redisWindowCounter(redis, options);
  };
  const failuresByAddress = counter(window('fail', config.authFailuresPerIp));
  const issuancesByAccount = counter(window('issue', config.tokenRatePerAccount));
  const limits = createAttemptLimits({ failuresByAddress, issuancesByAccount });
  const issuanceGate =
    redis && ownRedisStore && isRedisCounter(failuresByAddress) && isRedisCounter(issuancesByAccount)
      ? redisIssuanceGate(redis, { keyPrefix: config.redisKeyPrefix, failuresByAddress, issuancesByAccount })
      : undefined;

  const keys = guardKeyDirectory(createKeyDirectory(pool));
  const store = tokens;
  return {
    logger,
    keys,
    issuanceKeys: createIssuanceKeys(pool, keys, { cacheMs: config.keyCacheMs, now }),
    ...(issuanceGate ? { issuanceGate } : {}),
    tokens: guardTokenStore(store),
    limits,
    now,
    readiness: {
      postgres: pingPostgres(pool),
      redis: () => store.ping(),
    },
    async close() {
      for (const close of closers.reverse()) await close().catch((error: unknown) => logger.warn('error while closing', { error }));
    },
  };
}
