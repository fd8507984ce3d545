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
import { createAmqpEventBus, type EventBus } from '@platform/events';
import type { UserConfig } from './config';
import { createOutboxSignal, type OutboxSignal } from './outbox-signal';

/** Connections the embedded quickstart shares with the service instead of letting it open its own. */
export interface ProvidedDeps {
  pool?: pg.Pool;
  tokens?: TokenStore;
  /** The in-process bus the outbox relay publishes to (embedded quickstart, tests). */
  bus?: EventBus;
  /** The auth URL the account page calls, when known only after start (`pnpm start` on port 0). */
  accountPageAuthUrl?: () => string;
}

export interface UserDeps {
  logger: Logger;
  pool: pg.Pool;
  tokens: TokenStore;
  credentials: CredentialVerifier;
  /** Where the outbox relay publishes `balance.changed` events. */
  bus: EventBus;
  /** Rung after a request that may have written outbox events, so that the relay need not wait for its next poll. */
  outbox: OutboxSignal;
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
  if (!provided.tokens && config.redisUrl === undefined) missing.push('REDIS_URL: Required');
  if (!provided.bus && config.amqpUrl === undefined) missing.push('AMQP_URL: Required');
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
  const credentials = createCredentialVerifier({ keys: createKeyDirectory(pool), tokens });
  return {
    logger,
    pool,
    tokens,
    credentials,
    bus,
    outbox: createOutboxSignal(),
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
