import { z } from 'zod';
import type { RedisClusterNode } from '@platform/credentials';
import { env } from '@platform/runtime';

/**
 * The one way a variable is required outside the embedded quickstart and optional in it (the
 * URLs below, and secrets the quickstart generates): `standaloneOnly(required)(field)`.
 */
export function standaloneOnly(required: boolean) {
  return <T extends z.ZodTypeAny>(field: T) => (required ? field : field.optional());
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})$/;

/** REDIS_CLUSTER_NODES: comma-separated `host:port` seed nodes (`[v6]:port` for IPv6 addresses). */
function clusterNodes(alsoUrl: boolean) {
  return z.string().transform((value, context): RedisClusterNode[] => {
    if (alsoUrl) {
      context.addIssue({ code: z.ZodIssueCode.custom, message: 'set REDIS_URL or REDIS_CLUSTER_NODES, not both' });
      return z.NEVER;
    }
    const nodes = value.split(',').map((entry) => HOST_PORT.exec(entry.trim()));
    if (nodes.some((match) => match === null || Number(match[2]) < 1 || Number(match[2]) > 65535)) {
      context.addIssue({ code: z.ZodIssueCode.custom, message: 'must be comma-separated host:port seed nodes' });
      return z.NEVER;
    }
    return nodes.map((match) => ({ host: (match?.[1] ?? '').replace(/^\[|\]$/g, ''), port: Number(match?.[2]) }));
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
    DATABASE_URL: needed(env.url(['postgres', 'postgresql'])),
    REDIS_URL: standaloneOnly(required && !given('REDIS_CLUSTER_NODES'))(env.url(['redis', 'rediss'])),
    REDIS_CLUSTER_NODES: clusterNodes(given('REDIS_URL')).optional(),
    AMQP_URL: needed(env.url(['amqp', 'amqps'])),
    SMTP_URL: needed(env.url(['smtp', 'smtps'])),
  };
}

/** What openInfrastructure reads from a service's configuration: its URLs (never seen by the service). */
export interface InfrastructureConfig {
  databaseUrl?: string | undefined;
  redisUrl?: string | undefined;
  /** A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES), in place of redisUrl. */
  redisClusterNodes?: readonly RedisClusterNode[] | undefined;
  redisKeyPrefix?: string;
  amqpUrl?: string | undefined;
  smtpUrl?: string | undefined;
  /** Where e-mails go as `.eml` files when SMTP_URL is unset (embedded quickstart). */
  outboxDir?: string | undefined;
}
