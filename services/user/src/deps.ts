import type pg from 'pg';
import { ConfigError, type Logger } from '@platform/common';
import {
  connectRedis,
  createCredentialVerifier,
  createRedisTokenStore,
  memoryFailureLimit,
  redisFailureLimit,
  type CredentialVerifier,
  type FailureLimit,
  type TokenStore,
} from '@platform/credentials';
import { createPool } from '@platform/db';
import { createAmqpEventBus, type EventBus } from '@platform/events';
import type { UserConfig } from './config';
import { noBalanceCommitHook, type BalanceCommitHook } from './domain/balance-commit-hook';
import { createOutboxSignal, type OutboxSignal } from './outbox-signal';
import { createBatchedKeyDirectory } from './store/key-directory';

/** Connections the embedded quickstart shares with the service instead of letting it open its own. */
export interface ProvidedDeps {
  pool?: pg.Pool;
  tokens?: TokenStore;
  /** The in-process bus the outbox relay publishes to (embedded quickstart, tests). */
  bus?: EventBus;
  /** Runs inside every usage batch before it commits (default: nothing). */
  balanceHook?: BalanceCommitHook;
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
  tokens: TokenStore;
  credentials: CredentialVerifier;
  /** Failed admin-token attempts per client address, on the same Redis as the tokens (memory when tokens are provided). */
  adminFailures: FailureLimit;
  /** Where the outbox relay publishes `balance.changed` events. */
  bus: EventBus;
  /** Rung after a request that may have written outbox events, so that the relay need not wait for its next poll. */
  outbox: OutboxSignal;
  /** Runs inside every usage batch, after its decisions and before its commit (see BalanceCommitHook). */
  balanceHook: BalanceCommitHook;
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
  if (!provided.tokens && config.redisUrl === undefined) missing.push('REDIS_URL: Required');
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
  // API-key checks of one event-loop turn share one query (a fresh read each: never cached).
  const credentials = createCredentialVerifier({ keys: createBatchedKeyDirectory(pool), tokens });
  return {
    logger,
    pool,
    usagePool,
    tokens,
    credentials,
    adminFailures,
    bus,
    outbox: createOutboxSignal(),
    balanceHook: provided.balanceHook ?? noBalanceCommitHook,
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
