import { z } from 'zod';
import { env, parseEnv, type TrustProxy } from '@platform/common';

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
  /**
   * Public base URL: the issuer of the RFC 8414 metadata, never taken from the request's Host.
   * AUTH_URL, required outside the embedded quickstart (which defaults it to 127.0.0.1 and the port).
   */
  publicUrl: string;
  tokenRatePerAccount: number;
  authFailuresPerIp: number;
  trustProxy: TrustProxy;
  /** Bearer token `/metrics` requires; undefined leaves it open. */
  metricsToken: string | undefined;
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
    AUTH_URL: needed(env.url(['http', 'https'])),
    TOKEN_RATE_PER_ACCOUNT: env.positiveInt(600),
    AUTH_FAILURES_PER_IP: env.positiveInt(30),
    TRUST_PROXY: env.trustProxy(),
    METRICS_TOKEN: env.optionalSecret(16),
    LOG_LEVEL: env.logLevel(),
  });
}

/**
 * Reads the auth service's variables. With `requireInfrastructure` (every start except the
 * embedded quickstart) DATABASE_URL, REDIS_URL, ADMIN_TOKEN, SERVICE_JWT_SECRET and AUTH_URL are required;
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
    TRUST_PROXY: TrustProxy;
    METRICS_TOKEN?: string;
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
    publicUrl: (parsed.AUTH_URL ?? `http://127.0.0.1:${parsed.AUTH_PORT}`).replace(/\/+$/, ''),
    tokenRatePerAccount: parsed.TOKEN_RATE_PER_ACCOUNT,
    authFailuresPerIp: parsed.AUTH_FAILURES_PER_IP,
    trustProxy: parsed.TRUST_PROXY,
    metricsToken: parsed.METRICS_TOKEN,
    logLevel: parsed.LOG_LEVEL,
  };
}
