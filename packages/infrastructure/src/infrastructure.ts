import type { EventEmitter } from 'node:events';
import type pg from 'pg';
import { ConfigError, type Logger } from '@platform/runtime';
import {
  closeRedis,
  connectRedis,
  createMemoryAccessStore,
  createRedisAccessStore,
  redisLossSignals,
  type AccessStore,
  type RedisClient,
  type RedisTarget,
} from '@platform/credentials';
import { createPool, DEFAULT_POOL_MAX } from '@platform/db';
import { createAmqpEventBus, createInProcessEventBus, type EventBus } from '@platform/events';
import type { InfrastructureConfig } from './config';
import { createFileMailer, createSmtpMailer, type Mailer } from './mailer';

/** The access store and, when it is on Redis, the connection behind it (failure counters, loss detection). */
export interface RedisAdapter {
  access: AccessStore;
  /** Undefined when the store is the embedded memory one: counters then count in memory too. */
  client: RedisClient | undefined;
  /**
   * What the store's loss detection listens to (`close`, `ready`; see redisLossSignals): on a
   * Redis Cluster every node's loss and a periodic check. Absent: the client's own events.
   */
  signals?: Pick<EventEmitter, 'on' | 'off'>;
}

/** Every adapter a service may use; openInfrastructure returns only the ones it needs. */
export interface Adapters {
  pool: pg.Pool;
  /** The user service's usage batches: a pool of their own (usagePoolMax), the one pool when embedded. */
  usagePool: pg.Pool;
  /**
   * Migrations: DATABASE_DIRECT_URL (one connection, closed when idle) when it is set, else the
   * main pool. Never a pooler in transaction mode when the operator says where the server is.
   */
  directPool: pg.Pool;
  redis: RedisAdapter;
  bus: EventBus;
  mailer: Mailer;
}

export type Need = keyof Adapters;

export type Infrastructure<N extends Need = Need> = Pick<Adapters, N> & {
  /** Components that run embedded in this process (the quickstart's banner). */
  embedded: string[];
  /** Closes what openInfrastructure opened (never a given adapter), bus first, Postgres last. */
  close(): Promise<void>;
};

/** The embedded quickstart's Postgres engine (PGlite, scripts/embedded-postgres.ts). */
export interface EmbeddedPostgres {
  url: string;
  close(): Promise<void>;
}

export interface OpenInfrastructureOptions<N extends Need> {
  /** The connection name RabbitMQ shows, and the log context. */
  name: string;
  logger: Logger;
  needs: readonly N[];
  /** The topic exchange of the AMQP bus (BALANCE_EXCHANGE). */
  exchange?: string;
  /** The main pool's most connections, below DATABASE_POOL_MAX (the auth service needs 2). */
  poolMax?: number;
  /** The usage pool's connections (default 1), taken from DATABASE_POOL_MAX: the main pool gets the rest. */
  usagePoolMax?: number;
  /** Adapters opened elsewhere (a test's own bus or store), used as they are and left open. */
  given?: Partial<Adapters>;
  /**
   * The embedded quickstart: an unset URL then means an embedded adapter (PGlite on one shared
   * connection, the memory access store, the in-process bus, `.eml` files). Without it, every
   * URL the needs call for is required.
   */
  embedded?: { postgres(): Promise<EmbeddedPostgres> };
}

// The bus waits at most this long for a connection or a confirm before the relay backs off; a
// consumer drains within the 10 s shutdown budget (CONTRACT §8).
const BUS_TIMEOUTS = { publishTimeoutMs: 2000, confirmTimeoutMs: 5000, drainTimeoutMs: 5000 };

/** The one missing-URL check: every variable a need calls for that neither a URL, a given adapter nor embedding covers. */
function missingVariables(config: InfrastructureConfig, wants: (need: Need) => boolean, embedded: boolean): string[] {
  const missing = (need: Need[], set: boolean, variable: string) =>
    need.some(wants) && !set && !embedded ? [`${variable}: Required`] : [];
  return [
    ...missing(['pool', 'usagePool', 'directPool'], config.databaseUrl !== undefined, 'DATABASE_URL'),
    ...missing(['redis'], config.redisUrl !== undefined || config.redisClusterNodes !== undefined, 'REDIS_URL'),
    ...missing(['bus'], config.amqpUrl !== undefined, 'AMQP_URL'),
    ...missing(['mailer'], config.smtpUrl !== undefined || config.outboxDir !== undefined, 'SMTP_URL'),
  ];
}

function redisTarget(config: InfrastructureConfig): RedisTarget | undefined {
  if (config.redisClusterNodes !== undefined) return { clusterNodes: config.redisClusterNodes };
  return config.redisUrl === undefined ? undefined : { url: config.redisUrl };
}

/** DATABASE_POOL_MAX split among a process's pools: the usage pool's lanes first, the main pool the rest. */
function poolSizes(
  config: InfrastructureConfig,
  options: OpenInfrastructureOptions<Need>,
  usage: boolean,
): { main: number; usage: number } {
  const budget = config.databasePoolMax ?? DEFAULT_POOL_MAX;
  const usageMax = usage ? (options.usagePoolMax ?? 1) : 0;
  if (usage && usageMax >= budget) {
    throw new ConfigError(
      `invalid configuration: DATABASE_POOL_MAX: must be more than the usage pool's ${usageMax} connections (USAGE_BATCH_LANES)`,
    );
  }
  return { main: Math.min(options.poolMax ?? budget, budget - usageMax), usage: usageMax };
}

/** The real pools: main and usage through DATABASE_URL, the direct one for migrations. */
function openPools(
  config: InfrastructureConfig,
  options: OpenInfrastructureOptions<Need>,
  wants: (need: Need) => boolean,
  closers: Array<() => Promise<void>>,
): Partial<Adapters> {
  const { logger } = options;
  const url = config.databaseUrl ?? '';
  const sizes = poolSizes(config, options, wants('usagePool'));
  const open = (connectionString: string, max: number, requestTimeouts: boolean, idleTimeoutMs?: number): pg.Pool => {
    const pool = createPool({ connectionString, logger, max, requestTimeouts, ...(idleTimeoutMs ? { idleTimeoutMs } : {}) });
    closers.push(() => pool.end());
    return pool;
  };
  const opened: Partial<Adapters> = {};
  // Requests' pools answer within their budget (REQUEST_TIMEOUTS): a request never waits longer on Postgres.
  if (wants('pool')) opened.pool = open(url, sizes.main, true);
  if (wants('usagePool')) opened.usagePool = open(url, sizes.usage, true);
  if (wants('directPool')) {
    // Used at start, by the migrations, which may wait long for another replica's migration lock:
    // no query timeout. Its one connection closes a second after them (DATABASE_DIRECT_URL, else
    // DATABASE_URL: the migrations keep no session state).
    opened.directPool = open(config.databaseDirectUrl ?? url, 1, false, 1000);
  }
  return opened;
}

/**
 * The one composition root of connections: opens what a service needs from its configuration,
 * real when its URL is set, embedded otherwise (only when `embedded` is given), and one close().
 */
export async function openInfrastructure<N extends Need>(
  config: InfrastructureConfig,
  options: OpenInfrastructureOptions<N>,
): Promise<Infrastructure<N>> {
  const given = options.given ?? {};
  const needed = (need: Need): boolean => (options.needs as readonly Need[]).includes(need);
  // Without DATABASE_DIRECT_URL the migrations use the main pool, also a given one.
  const directIsGivenPool = config.databaseDirectUrl === undefined && given.directPool === undefined && given.pool !== undefined;
  const wants = (need: Need): boolean => needed(need) && given[need] === undefined && !(need === 'directPool' && directIsGivenPool);
  const missing = missingVariables(config, wants, options.embedded !== undefined);
  if (missing.length > 0) throw new ConfigError(`invalid configuration: ${missing.join('; ')}`);

  const { logger } = options;
  const closers: Array<() => Promise<void>> = [];
  const embedded: string[] = [];
  const opened: Partial<Adapters> = {};
  const close = async (): Promise<void> => {
    for (const closeOne of closers.reverse()) await closeOne().catch((error: unknown) => logger.warn('error while closing', { error }));
    closers.length = 0;
  };
  try {
    if (wants('pool') || wants('usagePool') || wants('directPool')) {
      if (config.databaseUrl === undefined && options.embedded) {
        const engine = await options.embedded.postgres();
        closers.push(() => engine.close());
        // PGlite serves one connection at a time: everything shares this one-connection pool.
        const shared = createPool({ connectionString: engine.url, max: 1, logger });
        closers.push(() => shared.end());
        Object.assign(opened, { pool: shared, usagePool: shared, directPool: shared });
        embedded.push('postgres');
      } else {
        Object.assign(opened, openPools(config, options, wants, closers));
      }
    }
    if (wants('redis')) {
      const target = redisTarget(config);
      if (target === undefined) {
        const access = createMemoryAccessStore();
        closers.push(() => access.close());
        opened.redis = { access, client: undefined };
        embedded.push('access store');
      } else {
        const client = await connectRedis(target, logger);
        closers.push(() => closeRedis(client));
        const signals = redisLossSignals(client);
        closers.push(() => Promise.resolve(signals.stop()));
        opened.redis = { access: createRedisAccessStore(client, { keyPrefix: config.redisKeyPrefix ?? 'aap:' }), client, signals };
      }
    }
    if (wants('mailer')) {
      const mailer = config.smtpUrl !== undefined ? createSmtpMailer(config.smtpUrl) : createFileMailer(config.outboxDir ?? '');
      closers.push(() => mailer.close());
      opened.mailer = mailer;
    }
    if (wants('bus')) {
      // The AMQP bus connects in the background: a service starts while RabbitMQ is down.
      const bus =
        config.amqpUrl === undefined
          ? createInProcessEventBus()
          : createAmqpEventBus({
              url: config.amqpUrl,
              logger,
              connectionName: options.name,
              ...(options.exchange ? { exchange: options.exchange } : {}),
              ...BUS_TIMEOUTS,
            });
      closers.push(() => bus.close());
      opened.bus = bus;
    }
  } catch (error) {
    await close();
    throw error;
  }
  if (needed('directPool') && directIsGivenPool && given.pool) opened.directPool = given.pool;
  if (opened.bus && config.amqpUrl === undefined) embedded.push('event bus');
  if (opened.mailer && config.smtpUrl === undefined) embedded.push('mail outbox');
  // Every need is opened or given (checked above); Pick<Adapters, N> cannot be built field by field.
  return { ...opened, ...given, embedded, close } as unknown as Infrastructure<N>;
}
