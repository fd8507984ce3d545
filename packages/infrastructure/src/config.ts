import { z } from 'zod';
import type { RedisClusterNode } from '@platform/credentials';
import { env } from '@platform/runtime';
import { DEFAULT_POOL_MAX } from '@platform/db';

/**
 * The one way a variable is required outside the embedded quickstart and optional in it (the
 * URLs below, and secrets the quickstart generates): `standaloneOnly(required)(field)`.
 */
export function standaloneOnly(required: boolean) {
  return <T extends z.ZodTypeAny>(field: T) => (required ? field : field.optional());
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})$/;

/** One seed: `host:port`, or a `redis://[user:password@]host:port` / `rediss://…` URL (credentials, TLS). */
function seedNode(entry: string): RedisClusterNode | undefined {
  if (/^rediss?:\/\//.test(entry)) {
    const url = URL.canParse(entry) ? new URL(entry) : undefined;
    if (!url || url.port === '' || (url.pathname !== '' && url.pathname !== '/')) return undefined;
    return {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port),
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      ...(url.protocol === 'rediss:' ? { tls: true } : {}),
    };
  }
  const match = HOST_PORT.exec(entry);
  const port = Number(match?.[2]);
  return match && port >= 1 && port <= 65535 ? { host: (match[1] as string).replace(/^\[|\]$/g, ''), port } : undefined;
}

/** REDIS_CLUSTER_NODES: comma-separated seed nodes, `host:port` (`[v6]:port`) or redis[s]:// URLs. */
function clusterNodes(alsoUrl: boolean) {
  return z.string().transform((value, context): RedisClusterNode[] => {
    if (alsoUrl) {
      context.addIssue({ code: z.ZodIssueCode.custom, message: 'set REDIS_URL or REDIS_CLUSTER_NODES, not both' });
      return z.NEVER;
    }
    const nodes = value.split(',').map((entry) => seedNode(entry.trim()));
    if (nodes.some((node) => node === undefined)) {
      // Never the value itself: a URL entry may hold a password.
      context.addIssue({ code: z.ZodIssueCode.custom, message: 'must be comma-separated host:port seed nodes (or redis:// URLs)' });
      return z.NEVER;
    }
    return nodes as RedisClusterNode[];
  });
}

/**
 * The infrastructure variables, each defined once. A service's schema takes the ones it uses
 * from here; `required` is false only for the embedded quickstart (`pnpm start`), where
 * openInfrastructure stands in embedded adapters for the unset ones. `environment`: the one being
 * parsed, for the variables that stand in for each other (REDIS_URL or REDIS_CLUSTER_NODES).
 */
export function infrastructureVariables(required: boolean, environment: NodeJS.ProcessEnv = {}) {
  const needed = standaloneOnly(required);
  const given = (name: string): boolean => (environment[name] ?? '') !== '';
  return {
    DATABASE_URL: needed(
      env
        .url(['postgres', 'postgresql'])
        .describe('Postgres (`postgres://…`); unset under `pnpm start`: an embedded Postgres in `DATA_DIR/pg`.'),
    ),
    /** Migrations (and anything session-scoped) when DATABASE_URL is a pooler in transaction mode; default DATABASE_URL. */
    DATABASE_DIRECT_URL: env
      .url(['postgres', 'postgresql'])
      .optional()
      .describe(
        'The Postgres server itself, for migrations at start and the CLIs that write directly, when `DATABASE_URL` is a pooler in transaction mode (docs/scale-out.md). Unset: `DATABASE_URL`.',
      ),
    /** Connections one process opens through DATABASE_URL at most, all its pools together (CONTRACT §1). */
    DATABASE_POOL_MAX: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(DEFAULT_POOL_MAX)
      .describe(
        'Postgres connections one process opens through `DATABASE_URL`, all its pools together (1–1000; in the user service more than `USAGE_BATCH_LANES`; auth uses 2 at most); budget in docs/operations.md.',
      ),
    REDIS_URL: standaloneOnly(required && !given('REDIS_CLUSTER_NODES'))(
      env
        .url(['redis', 'rediss'])
        .describe(
          'Redis (`redis://…`, `rediss://…`), run with `maxmemory-policy noeviction` (key records have no TTL); or `REDIS_CLUSTER_NODES`, not both. Unset under `pnpm start`: an in-process access store.',
        ),
    ),
    REDIS_CLUSTER_NODES: clusterNodes(given('REDIS_URL'))
      .optional()
      .describe(
        "A Redis Cluster's seed nodes, comma-separated, `host:port` or `redis[s]://` URLs, in place of `REDIS_URL` (docs/scale-out.md).",
      ),
    /** One node, or the nodes of a cluster, comma-separated: the bus connects to the first that answers. */
    AMQP_URL: needed(
      env
        .urlList(['amqp', 'amqps'])
        .describe(
          "RabbitMQ: one node, or a cluster's nodes comma-separated (the first that answers; the next when it goes away). Unset under `pnpm start`: an in-process event bus.",
        ),
    ),
    SMTP_URL: needed(
      env
        .url(['smtp', 'smtps'])
        .describe('The mail server (`smtp://…`, `smtps://…`). Unset under `pnpm start`: `.eml` files in `OUTBOX_DIR`.'),
    ),
  };
}

/** What openInfrastructure reads from a service's configuration: its URLs (never seen by the service). */
export interface InfrastructureConfig {
  databaseUrl?: string | undefined;
  /** DATABASE_DIRECT_URL: migrations go there; unset, through DATABASE_URL. */
  databaseDirectUrl?: string | undefined;
  /** DATABASE_POOL_MAX: the process's connections through DATABASE_URL at most (default 10). */
  databasePoolMax?: number;
  redisUrl?: string | undefined;
  /** A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES), in place of redisUrl. */
  redisClusterNodes?: readonly RedisClusterNode[] | undefined;
  redisKeyPrefix?: string;
  /** One AMQP URL or several, comma-separated (the nodes of a cluster). */
  amqpUrl?: string | undefined;
  smtpUrl?: string | undefined;
  /** Where e-mails go as `.eml` files when SMTP_URL is unset (embedded quickstart). */
  outboxDir?: string | undefined;
}
