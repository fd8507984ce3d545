import { z } from 'zod';
import { env, parseEnv } from '@platform/common';

/** Validated configuration of the auth service. */
export interface AuthConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** Accepted as a Bearer caller of the introspection endpoint; undefined disables that caller. */
  adminToken: string | undefined;
  /** HS256 secret of service JWTs (audience `auth`); undefined disables service callers. */
  serviceJwtSecret: string | undefined;
  /** Public base URL (issuer in the RFC 8414 metadata); undefined: taken from the request. */
  publicUrl: string | undefined;
  tokenRatePerAccount: number;
  authFailuresPerIp: number;
  trustProxy: boolean;
  logLevel: string;
}

function schema(requireInfrastructure: boolean) {
  const needed = <T extends z.ZodTypeAny>(field: T) => (requireInfrastructure ? field : field.optional());
  return z.object({
    AUTH_PORT: env.port(8081),
    HOST: z.string().default('127.0.0.1'),
    DATABASE_URL: needed(env.url(['postgres', 'postgresql'])),
    REDIS_URL: needed(env.url(['redis', 'rediss'])),
    REDIS_KEY_PREFIX: env.keyPrefix(),
    ADMIN_TOKEN: needed(env.secret(16)),
    SERVICE_JWT_SECRET: needed(env.secret(32)),
    AUTH_URL: env.url(['http', 'https']).optional(),
    TOKEN_RATE_PER_ACCOUNT: env.positiveInt(600),
    AUTH_FAILURES_PER_IP: env.positiveInt(30),
    TRUST_PROXY: env.bool(false),
    LOG_LEVEL: env.logLevel(),
  });
}

/**
 * Reads the auth service's variables. With `requireInfrastructure` (every start except the
 * embedded quickstart) DATABASE_URL, REDIS_URL, ADMIN_TOKEN and SERVICE_JWT_SECRET are required;
 * every problem is reported together in one ConfigError.
 */
export function loadConfig(environment: NodeJS.ProcessEnv, { requireInfrastructure = true } = {}): AuthConfig {
  const parsed = parseEnv(schema(requireInfrastructure), environment) as {
    AUTH_PORT: number;
    HOST: string;
    DATABASE_URL?: string;
    REDIS_URL?: string;
    REDIS_KEY_PREFIX: string;
    ADMIN_TOKEN?: string;
    SERVICE_JWT_SECRET?: string;
    AUTH_URL?: string;
    TOKEN_RATE_PER_ACCOUNT: number;
    AUTH_FAILURES_PER_IP: number;
    TRUST_PROXY: boolean;
    LOG_LEVEL: string;
  };
  return {
    port: parsed.AUTH_PORT,
    host: parsed.HOST,
    databaseUrl: parsed.DATABASE_URL,
    redisUrl: parsed.REDIS_URL,
    redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
    adminToken: parsed.ADMIN_TOKEN,
    serviceJwtSecret: parsed.SERVICE_JWT_SECRET,
    publicUrl: parsed.AUTH_URL?.replace(/\/+$/, ''),
    tokenRatePerAccount: parsed.TOKEN_RATE_PER_ACCOUNT,
    authFailuresPerIp: parsed.AUTH_FAILURES_PER_IP,
    trustProxy: parsed.TRUST_PROXY,
    logLevel: parsed.LOG_LEVEL,
  };
}
