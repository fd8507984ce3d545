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
import { createPool } from '@platform/db';
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
  /** Size of the main pool (default 10). */
  poolMax?: number;
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
    ...missing(['pool', 'usagePool'], config.databaseUrl !== undefined, 'DATABASE_URL'),
    ...missing(['redis'], config.redisUrl !== undefined || config.redisClusterNodes !== undefined, 'REDIS_URL'),
    ...missing(['bus'], config.amqpUrl !== undefined, 'AMQP_URL'),
    ...missing(['mailer'], config.smtpUrl !== undefined || config.outboxDir !== undefined, 'SMTP_URL'),
  ];
}

function redisTarget(config: InfrastructureConfig): RedisTarget | undefined {
  if (config.redisClusterNodes !== undefined) return { clusterNodes: config.redisClusterNodes };
  return config.redisUrl === undefined ? undefined : { url: config.redisUrl };
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
  const wants = (need: Need): boolean => (options.needs as readonly Need[]).includes(need) && given[need] === undefined;
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
    if (wants('pool') || wants('usagePool')) {
      if (config.databaseUrl === undefined && options.embedded) {
        const engine = await options.embedded.postgres();
        closers.push(() => engine.close());
        // PGlite serves one connection at a time: everything shares this one-connection pool.
        const shared = createPool({ connectionString: engine.url, max: 1, logger });
        closers.push(() => shared.end());
        opened.pool = shared;
        opened.usagePool = shared;
        embedded.push('postgres');
      } else {
        const url = config.databaseUrl ?? '';
        const pool = createPool({ connectionString: url, logger, ...(options.poolMax ? { max: options.poolMax } : {}) });
        closers.push(() => pool.end());
        opened.pool = pool;
        if (wants('usagePool')) {
          const usagePool = createPool({ connectionString: url, logger, ...(options.usagePoolMax ? { max: options.usagePoolMax } : {}) });
          closers.push(() => usagePool.end());
          opened.usagePool = usagePool;
        }
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
  if (opened.bus && config.amqpUrl === undefined) embedded.push('event bus');
  if (opened.mailer && config.smtpUrl === undefined) embedded.push('mail outbox');
  // Every need is opened or given (checked above); Pick<Adapters, N> cannot be built field by field.
  return { ...opened, ...given, embedded, close } as unknown as Infrastructure<N>;
}
