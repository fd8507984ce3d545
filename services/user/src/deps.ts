import type pg from 'pg';
import type { Logger } from '@platform/runtime';
import { reconcileAll } from '@platform/accounts';
import {
  createCredentialVerifier,
  memoryFailureLimit,
  redisFailureLimit,
  watchAccessStore,
  type CredentialVerifier,
  type FailureLimit,
  type WatchedAccessStore,
} from '@platform/credentials';
import type { EventBus } from '@platform/events';
import type { Adapters } from '@platform/infrastructure';
import type { UserConfig } from './config';
import type { BalanceCommitHook } from './domain/balance-commit-hook';
import { createOutboxSignal, type OutboxSignal } from './outbox-signal';
import { accessRecordsBalanceHook, createAccessRepair } from './store/access-records';
import type { AccessRecordsDeps } from './store/user-store';

/** The adapters the user service runs on (openInfrastructure opens them; never URLs). */
export type UserInfrastructure = Pick<Adapters, 'pool' | 'usagePool' | 'directPool' | 'redis' | 'bus'>;
export const USER_NEEDS = ['pool', 'usagePool', 'directPool', 'redis', 'bus'] as const;

/** Seams beside the adapters (tests, the quickstart). */
export interface UserSeams {
  /** Runs inside every usage batch before it commits (default: the access records' credit bits). */
  balanceHook?: BalanceCommitHook;
  /** The auth URL the account page calls, when known only after start (`pnpm start` on port 0). */
  accountPageAuthUrl?: () => string;
}

export interface UserDeps {
  logger: Logger;
  pool: pg.Pool;
  /**
   * The connections usage batches run on: their own, one per batch lane, so that a batch never
   * queues for a connection behind the credential checks of the requests it will answer. The
   * embedded quickstart's one shared connection otherwise.
   */
  usagePool: pg.Pool;
  /** The access store's loss detection: start() after the migrations, before serving. */
  watch: WatchedAccessStore;
  /** Where the stores write access records (CONTRACT §3) and repair them after a failed transaction. */
  access: AccessRecordsDeps;
  credentials: CredentialVerifier;
  /** Failed admin-token attempts per client address, on the access store's Redis (in memory when the store is the embedded one). */
  adminFailures: FailureLimit;
  /** Where the outbox relay publishes `balance.changed` events. */
  bus: EventBus;
  /** Rung after a request that may have written outbox events, so that the relay need not wait for its next poll. */
  outbox: OutboxSignal;
  /** Runs inside every usage batch, after its decisions and before its commit (see BalanceCommitHook). */
  balanceHook: BalanceCommitHook;
  /** The auth service's base URL as customers' browsers reach it (the account page's sign-in and sign-out). */
  accountPageAuthUrl: () => string;
  /** Stops the access store's watch and repair; the adapters are closed by whoever opened them. */
  close(): Promise<void>;
}

/** The user service's parts over ready adapters; it opens no connection itself. */
export function createDeps(config: UserConfig, logger: Logger, infrastructure: UserInfrastructure, seams: UserSeams = {}): UserDeps {
  const { pool, usagePool, bus, redis } = infrastructure;
  const limitOptions = { points: config.authFailuresPerIp, keyPrefix: `${config.redisKeyPrefix}rl:admin-fail` };
  const store = redis.access;
  const watch = watchAccessStore(store, {
    reconcile: () => reconcileAll(pool, store),
    ...(redis.client ? { connection: redis.client } : {}),
    logger,
  });
  const repair = createAccessRepair(pool, watch.store, logger);
  const access = { writer: watch.store, repair };
  return {
    logger,
    pool,
    usagePool,
    watch,
    access,
    credentials: createCredentialVerifier({ access: watch.store }),
    adminFailures: redis.client ? redisFailureLimit(redis.client, limitOptions) : memoryFailureLimit(limitOptions),
    bus,
    outbox: createOutboxSignal(),
    balanceHook: seams.balanceHook ?? accessRecordsBalanceHook(access),
    accountPageAuthUrl: seams.accountPageAuthUrl ?? (() => config.accountPageAuthUrl),
    close() {
      watch.stop();
      repair.stop();
      return Promise.resolve();
    },
  };
}
