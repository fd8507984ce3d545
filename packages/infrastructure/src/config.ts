import type { z } from 'zod';
import { env } from '@platform/runtime';

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
    REDIS_URL: needed(env.url(['redis', 'rediss'])),
    AMQP_URL: needed(env.url(['amqp', 'amqps'])),
    SMTP_URL: needed(env.url(['smtp', 'smtps'])),
  };
}

/** What openInfrastructure reads from a service's configuration: its URLs (never seen by the service). */
export interface InfrastructureConfig {
  databaseUrl?: string | undefined;
  redisUrl?: string | undefined;
  redisKeyPrefix?: string;
  amqpUrl?: string | undefined;
  smtpUrl?: string | undefined;
  /** Where e-mails go as `.eml` files when SMTP_URL is unset (embedded quickstart). */
  outboxDir?: string | undefined;
}
