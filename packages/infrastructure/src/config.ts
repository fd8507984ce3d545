import { z } from 'zod';
import { env } from '@platform/runtime';
import { DEFAULT_POOL_MAX } from '@platform/db';

/**
 * The one way a variable is required outside the embedded quickstart and optional in it (the
 * URLs below, and secrets the quickstart generates): `standaloneOnly(required)(field)`.
 */
export function standaloneOnly(required: boolean) {
  return <T extends z.ZodTypeAny>(field: T) => (required ? field : field.optional());
}

/**
 * The infrastructure variables, each defined once. A service's schema takes the ones it uses
 * from here; `required` is false only for the embedded quickstart (`pnpm start`), where
 * openInfrastructure stands in embedded adapters for the unset ones.
 */
export function infrastructureVariables(required: boolean) {
  const needed = standaloneOnly(required);
  return {
    DATABASE_URL: needed(env.url(['postgres', 'postgresql'])),
    /** Migrations (and anything session-scoped) when DATABASE_URL is a pooler in transaction mode; default DATABASE_URL. */
    DATABASE_DIRECT_URL: env.url(['postgres', 'postgresql']).optional(),
    /** Connections one process opens through DATABASE_URL at most, all its pools together (CONTRACT §1). */
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(DEFAULT_POOL_MAX),
    REDIS_URL: needed(env.url(['redis', 'rediss'])),
    /** One node, or the nodes of a cluster, comma-separated: the bus connects to the first that answers. */
    AMQP_URL: needed(env.urlList(['amqp', 'amqps'])),
    SMTP_URL: needed(env.url(['smtp', 'smtps'])),
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
  redisKeyPrefix?: string;
  /** One AMQP URL or several, comma-separated (the nodes of a cluster). */
  amqpUrl?: string | undefined;
  smtpUrl?: string | undefined;
  /** Where e-mails go as `.eml` files when SMTP_URL is unset (embedded quickstart). */
  outboxDir?: string | undefined;
}
