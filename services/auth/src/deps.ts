import type { Logger, ReadinessCheck } from '@platform/runtime';
import { keyRefusalExplainer, watchAccessRecords } from '@platform/accounts';
import {
  memoryFailureLimit,
  redisFailureLimit,
  type AccessStore,
  type ExplainKeyRefusal,
  type FailureLimit,
  type WatchedAccessStore,
} from '@platform/credentials';
import type { Adapters } from '@platform/infrastructure';
import type { AuthConfig } from './config';
import { createAttemptLimits, type AttemptLimits } from './domain/attempt-limits';
import { guardAccessStore } from './store/unavailable';
import { memoryWindowCounter, redisWindowCounter, type WindowOptions } from './store/window-counters';

/**
 * The adapters the auth service runs on: Postgres only reconciles the access store after a Redis loss
 * and explains refusals of keys the store does not know.
 */
export type AuthInfrastructure = Pick<Adapters, 'pool' | 'redis'>;
export const AUTH_NEEDS = ['pool', 'redis'] as const;
/** A small pool: it only reconciles and explains refused keys. */
export const AUTH_POOL_MAX = 2;

/** Seams beside the adapters (tests). */
export interface AuthSeams {
  /** Milliseconds since the epoch. Default Date.now. */
  now?: () => number;
}

export interface AuthDeps {
  logger: Logger;
  /** Key records and tokens; every failure (and a store not reconciled yet) is a 503. */
  access: AccessStore;
  /** The store's loss detection: start() before serving. */
  watch: WatchedAccessStore;
  limits: AttemptLimits;
  /** Wrong admin tokens per client address on the introspection endpoint (the admin APIs' limit). */
  adminFailures: FailureLimit;
  /** Why a key the store does not know was refused (Postgres, on the refusal path only). */
  explainKey: ExplainKeyRefusal;
  /** Issuances per account and window (TOKEN_RATE_PER_ACCOUNT a minute). */
  issuanceLimit: { points: number; windowSeconds: number };
  now: () => number;
  readiness: Record<string, ReadinessCheck>;
  /** Stops the watch; the adapters are closed by whoever opened them. */
  close(): Promise<void>;
}

const WINDOW_SECONDS = 60;

/**
 * The auth service's parts over ready adapters: the access store (and, on Redis, the failure
 * counters; in memory when the store is the embedded one).
 */
export function createDeps(config: AuthConfig, logger: Logger, infrastructure: AuthInfrastructure, seams: AuthSeams = {}): AuthDeps {
  const { pool, redis } = infrastructure;
  const watch = watchAccessRecords(pool, redis, logger);
  const window: WindowOptions = {
    keyPrefix: `${config.redisKeyPrefix}rl:fail`,
    points: config.authFailuresPerIp,
    durationSeconds: WINDOW_SECONDS,
  };
  const adminLimit = { points: config.authFailuresPerIp, keyPrefix: `${config.redisKeyPrefix}rl:admin-fail` };
  const failuresByAddress = redis.client ? redisWindowCounter(redis.client, window) : memoryWindowCounter(window);
  return {
    logger,
    access: guardAccessStore(watch.store),
    watch,
    limits: createAttemptLimits({ failuresByAddress }),
    adminFailures: redis.client ? redisFailureLimit(redis.client, adminLimit) : memoryFailureLimit(adminLimit),
    explainKey: keyRefusalExplainer(pool),
    issuanceLimit: { points: config.tokenRatePerAccount, windowSeconds: WINDOW_SECONDS },
    now: seams.now ?? Date.now,
    readiness: { redis: () => watch.check() },
    close() {
      watch.stop();
      return Promise.resolve();
    },
  };
}
