import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import { ConfigError, type Logger, type ReadinessCheck } from '@platform/common';
import { reconcileAll } from '@platform/accounts';
import {
  closeRedis,
  connectRedis,
  createRedisAccessStore,
  watchAccessStore,
  type AccessStore,
  type WatchedAccessStore,
} from '@platform/credentials';
import { createPool } from '@platform/db';
import type { AuthConfig } from './config';
import { createAttemptLimits, type AttemptLimits } from './domain/attempt-limits';
import { guardAccessStore } from './store/unavailable';
import { memoryWindowCounter, redisWindowCounter, type WindowOptions } from './store/window-counters';

/** What the embedded quickstart (or a test) hands in instead of opening connections. */
export interface ProvidedDeps {
  pool?: Pool;
  /** An access store shared with the other services of the process (the memory one, embedded). */
  access?: AccessStore;
  /** `memory` with the memory access store; default: `redis` when REDIS_URL is set. */
  limiterBackend?: 'memory' | 'redis';
  /** Milliseconds since the epoch (tests). */
  now?: () => number;
}

export interface AuthDeps {
  logger: Logger;
  /** Key records and tokens; every failure (and a store not reconciled yet) is a 503. */
  access: AccessStore;
  /** The store's loss detection: start() before serving. */
  watch: WatchedAccessStore;
  limits: AttemptLimits;
  /** Issuances per account and window (TOKEN_RATE_PER_ACCOUNT a minute). */
  issuanceLimit: { points: number; windowSeconds: number };
  now: () => number;
  readiness: Record<string, ReadinessCheck>;
  /** Closes only what createDeps opened. */
  close(): Promise<void>;
}

const WINDOW_SECONDS = 60;

/**
 * The only place the auth service opens connections: one Redis client (access store and failure
 * counters) and a small Postgres pool, used only to reconcile the access store after a Redis loss.
 */
export async function createDeps(config: AuthConfig, logger: Logger, provided: ProvidedDeps = {}): Promise<AuthDeps> {
  const closers: Array<() => Promise<void>> = [];
  const now = provided.now ?? Date.now;

  let pool = provided.pool;
  if (!pool) {
    if (config.databaseUrl === undefined) throw new ConfigError('invalid configuration: DATABASE_URL: Required');
    const opened = createPool({ connectionString: config.databaseUrl, logger, max: 2 });
    closers.push(() => opened.end());
    pool = opened;
  }

  const backend = provided.limiterBackend ?? (config.redisUrl !== undefined ? 'redis' : 'memory');
  let redis: Redis | undefined;
  if (config.redisUrl !== undefined && (!provided.access || backend === 'redis')) {
    const client = await connectRedis(config.redisUrl, logger);
    closers.push(() => closeRedis(client));
    redis = client;
  }

  let inner = provided.access;
  if (!inner) {
    if (!redis) throw new ConfigError('invalid configuration: REDIS_URL: Required');
    inner = createRedisAccessStore(redis, { keyPrefix: config.redisKeyPrefix });
  }
  const source = pool;
  const store = inner;
  const watch = watchAccessStore(store, {
    reconcile: () => reconcileAll(source, store),
    ...(provided.access || !redis ? {} : { connection: redis }),
    logger,
  });
  closers.push(() => Promise.resolve(watch.stop()));

  const window: WindowOptions = {
    keyPrefix: `${config.redisKeyPrefix}rl:fail`,
    points: config.authFailuresPerIp,
    durationSeconds: WINDOW_SECONDS,
  };
  let failuresByAddress = memoryWindowCounter(window);
  if (backend === 'redis') {
    if (!redis) throw new ConfigError('invalid configuration: REDIS_URL: Required');
    failuresByAddress = redisWindowCounter(redis, window);
  }

  return {
    logger,
    access: guardAccessStore(watch.store),
    watch,
    limits: createAttemptLimits({ failuresByAddress }),
    issuanceLimit: { points: config.tokenRatePerAccount, windowSeconds: WINDOW_SECONDS },
    now,
    readiness: { redis: () => watch.check() },
    async close() {
      for (const close of closers.reverse()) await close().catch((error: unknown) => logger.warn('error while closing', { error }));
    },
  };
}
