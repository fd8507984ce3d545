import { z } from 'zod';
import { env, parseEnv } from '@platform/common';

export interface UserConfig {
  host: string;
  port: number;
  /** Undefined only when the embedded quickstart provides a pool. */
  databaseUrl: string | undefined;
  /** Undefined only when the embedded quickstart provides a token store. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** Used by the outbox relay (added separately); undefined in the embedded quickstart. */
  amqpUrl: string | undefined;
  /** Guards the admin API; the embedded quickstart generates one when unset. */
  adminToken: string | undefined;
  /** Verifies service JWTs on the internal usage API (added separately). */
  serviceJwtSecret: string | undefined;
  logLevel: string;
}

const ADMIN_TOKEN_MIN = 16;
const JWT_SECRET_MIN = 32;

function schema(requireInfrastructure: boolean) {
  const needed = <T extends z.ZodTypeAny>(field: T) => (requireInfrastructure ? field : field.optional());
  return z.object({
    HOST: z.string().default('127.0.0.1'),
    USER_PORT: env.port(8082),
    DATABASE_URL: needed(env.url(['postgres', 'postgresql'])),
    REDIS_URL: needed(env.url(['redis', 'rediss'])),
    REDIS_KEY_PREFIX: z.string().default('aap:'),
    AMQP_URL: needed(env.url(['amqp', 'amqps'])),
    ADMIN_TOKEN: needed(env.secret(ADMIN_TOKEN_MIN)),
    SERVICE_JWT_SECRET: needed(env.secret(JWT_SECRET_MIN)),
    LOG_LEVEL: env.logLevel(),
  });
}

/**
 * The user service's configuration. With `requireInfrastructure` (every mode but the embedded
 * quickstart) DATABASE_URL, REDIS_URL, AMQP_URL, ADMIN_TOKEN and SERVICE_JWT_SECRET are
 * required, reported together in one ConfigError.
 */
export function loadConfig(environment: NodeJS.ProcessEnv, { requireInfrastructure = true } = {}): UserConfig {
  const parsed = parseEnv(schema(requireInfrastructure), environment) as {
    HOST: string;
    USER_PORT: number;
    DATABASE_URL?: string;
    REDIS_URL?: string;
    REDIS_KEY_PREFIX: string;
    AMQP_URL?: string;
    ADMIN_TOKEN?: string;
    SERVICE_JWT_SECRET?: string;
    LOG_LEVEL: string;
  };
  return {
    host: parsed.HOST,
    port: parsed.USER_PORT,
    databaseUrl: parsed.DATABASE_URL,
    redisUrl: parsed.REDIS_URL,
    redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
    amqpUrl: parsed.AMQP_URL,
    adminToken: parsed.ADMIN_TOKEN,
    serviceJwtSecret: parsed.SERVICE_JWT_SECRET,
    logLevel: parsed.LOG_LEVEL,
  };
}
