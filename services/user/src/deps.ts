import type pg from 'pg';
import type { Redis } from 'ioredis';
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
import { createAmqpEventBus, type EventBus } from '@platform/events';
import type { UserConfig } from './config';
import type { BalanceCommitHook } from './domain/balance-commit-hook';
import { createOutboxSignal, type OutboxSignal } from './outbox-signal';
import { accessRecordsBalanceHook, createAccessRepair } from './store/access-records';
import type { AccessRecordsDeps } from './store/user-store';

/** Connections the embedded quickstart shares with the service instead of letting it open its own. */
export interface ProvidedDeps {
  pool?: pg.Pool;
  /** The access store of the process (the memory one, embedded). */
  access?: AccessStore;
  /** The in-process bus the outbox relay publishes to (embedded quickstart, tests). */
  bus?: EventBus;
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
  /** Failed admin-token attempts per client address, on the access store's Redis (memory when the store is provided). */
  adminFailures: FailureLimit;
  /** Where the outbox relay publishes `balance.changed` events. */
  bus: EventBus;
  /** Rung after a request that may have written outbox events, so that the relay need not wait for its next poll. */
  outbox: OutboxSignal;
  /** Runs inside every usage batch, after its decisions and before its commit (see BalanceCommitHook). */
  balanceHook: BalanceCommitHook;
  /** The auth service's base URL as customers' browsers reach it (the account page's sign-in and sign-out). */
  accountPageAuthUrl: () => string;
  /** Closes only what createDeps opened itself. */
  close(): Promise<void>;
}

// The relay waits at most this long for a connection or a confirm before it backs off and
// retries; short enough that a stop during a RabbitMQ outage stays within the 10 s budget.
const PUBLISH_TIMEOUT_MS = 2000;
const CONFIRM_TIMEOUT_MS = 5000;

/** The only place the user service opens Postgres, Redis and RabbitMQ connections. */
export async function createDeps(config: UserConfig, logger: Logger, provided: ProvidedDeps = {}): Promise<UserDeps> {
  const missing: string[] = [];
  if (!provided.pool && config.databaseUrl === undefined) missing.push('DATABASE_URL: Required');
  if (!provided.access && config.redisUrl === undefined) missing.push('REDIS_URL: Required');
  if (!provided.bus && config.amqpUrl === undefined) missing.push('AMQP_URL: Required');
  if (missing.length > 0) throw new ConfigError(`invalid configuration: ${missing.join('; ')}`);

  const closers: Array<() => Promise<void>> = [];
  let pool = provided.pool;
  let usagePool = provided.pool;
  if (!pool || !usagePool) {
    const opened = createPool({ connectionString: config.databaseUrl as string, logger });
    const forUsage = createPool({ connectionString: config.databaseUrl as string, logger, max: config.usageBatchLanes });
    closers.push(
      () => opened.end(),
      () => forUsage.end(),
    );
    pool = opened;
    usagePool = forUsage;
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
  const store = inner;
  const watch = watchAccessStore(store, { reconcile: () => reconcileAll(source, store), ...(redis ? { connection: redis } : {}), logger });
  const repair = createAccessRepair(pool, watch.store, logger);
  closers.push(() => {
    watch.stop();
    repair.stop();
    return Promise.resolve();
  });
  let bus = provided.bus;
  if (!bus) {
    // Connects in the background: the service starts (and takes balance changes into the
    // outbox) while RabbitMQ is down.
    const opened = createAmqpEventBus({
      url: config.amqpUrl as string,
      exchange: config.balanceExchange,
      logger,
      connectionName: 'user',
      publishTimeoutMs: PUBLISH_TIMEOUT_MS,
      confirmTimeoutMs: CONFIRM_TIMEOUT_MS,
    });
    closers.push(() => opened.close());
    bus = opened;
  }
  const access = { writer: watch.store, repair };
  return {
    logger,
    pool,
    usagePool,
    watch,
    access,
    credentials: createCredentialVerifier({ access: watch.store }),
    adminFailures,
    bus,
    outbox: createOutboxSignal(),
    balanceHook: provided.balanceHook ?? accessRecordsBalanceHook(access),
    accountPageAuthUrl: provided.accountPageAuthUrl ?? (() => config.accountPageAuthUrl),
    async close() {
      for (const close of closers.reverse()) {
        try {
          await close();
        } catch (error) {
          logger.warn('error while closing a connection', { error });
        }
      }
    },
  };
}
