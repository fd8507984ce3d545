import { z } from 'zod';
import { env, parseEnv, type TrustProxy } from '@platform/common';
import { BALANCE_EXCHANGE } from '@platform/events';

export interface UserConfig {
  host: string;
  port: number;
  /** Undefined only when the embedded quickstart provides a pool. */
  databaseUrl: string | undefined;
  /** Undefined only when the embedded quickstart provides a token store. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** The outbox relay's RabbitMQ; undefined in the embedded quickstart (in-process bus). */
  amqpUrl: string | undefined;
  /** Topic exchange the relay publishes `balance.changed` to (BALANCE_EXCHANGE). */
  balanceExchange: string;
  /** How often the relay looks for unpublished events when nothing woke it (OUTBOX_POLL_MS). */
  outboxPollMs: number;
  /** Relay backoff after a failed publish: initial, doubling up to max (OUTBOX_RETRY_INITIAL_MS / _MAX_MS). */
  outboxRetryInitialMs: number;
  outboxRetryMaxMs: number;
  /** Usage debits per batch (one transaction) at most (USAGE_BATCH_MAX_SIZE). */
  usageBatchMaxSize: number;
  /** How long the first debit reaching an idle batch lane waits for others (USAGE_BATCH_MAX_WAIT_MS; 0: the rest of the event-loop turn). */
  usageBatchMaxWaitMs: number;
  /** Usage batches committing at once (USAGE_BATCH_LANES); one pool is always in one lane. */
  usageBatchLanes: number;
  /** How long a usage requestId's answer is kept, at least 24 h (USAGE_REQUEST_RETENTION_HOURS). */
  usageRequestRetentionHours: number;
  /** Pause between sweeps of expired usage requestIds (USAGE_REQUEST_SWEEP_MS). */
  usageRequestSweepMs: number;
  /** Guards the admin API; the embedded quickstart generates one when unset. */
  adminToken: string | undefined;
  /** Verifies service JWTs on the internal usage API. */
  serviceJwtSecret: string | undefined;
  /** Which proxies may name the client address (TRUST_PROXY). */
  trustProxy: TrustProxy;
  /** Failed admin-token attempts allowed per client address and minute (AUTH_FAILURES_PER_IP). */
  authFailuresPerIp: number;
  /** Bearer token `/metrics` requires; undefined leaves it open. */
  metricsToken: string | undefined;
  logLevel: string;
  /** The auth service's base URL as customers' browsers reach it, for the account page (ACCOUNT_PAGE_AUTH_URL, else AUTH_URL). */
  accountPageAuthUrl: string;
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
    REDIS_KEY_PREFIX: env.keyPrefix(),
    AMQP_URL: needed(env.url(['amqp', 'amqps'])),
    BALANCE_EXCHANGE: z.string().min(1).default(BALANCE_EXCHANGE),
    OUTBOX_POLL_MS: env.positiveInt(500),
    OUTBOX_RETRY_INITIAL_MS: env.positiveInt(500),
    OUTBOX_RETRY_MAX_MS: env.positiveInt(10_000),
    USAGE_BATCH_MAX_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
    USAGE_BATCH_MAX_WAIT_MS: z.coerce.number().int().min(0).max(1000).default(0),
    USAGE_BATCH_LANES: z.coerce.number().int().min(1).max(64).default(2),
    // CONTRACT §9: a requestId is remembered for at least 24 hours.
    USAGE_REQUEST_RETENTION_HOURS: z.coerce.number().int().min(24).default(25),
    USAGE_REQUEST_SWEEP_MS: env.positiveInt(10_000),
    ADMIN_TOKEN: needed(env.secret(ADMIN_TOKEN_MIN)),
    SERVICE_JWT_SECRET: needed(env.secret(JWT_SECRET_MIN)),
    TRUST_PROXY: env.trustProxy(),
    AUTH_FAILURES_PER_IP: env.positiveInt(30),
    METRICS_TOKEN: env.optionalSecret(16),
    LOG_LEVEL: env.logLevel(),
    AUTH_URL: z.string().url().default('http://127.0.0.1:8081'),
    ACCOUNT_PAGE_AUTH_URL: z.string().url().optional(),
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
    BALANCE_EXCHANGE: string;
    OUTBOX_POLL_MS: number;
    OUTBOX_RETRY_INITIAL_MS: number;
    OUTBOX_RETRY_MAX_MS: number;
    USAGE_BATCH_MAX_SIZE: number;
    USAGE_BATCH_MAX_WAIT_MS: number;
    USAGE_BATCH_LANES: number;
    USAGE_REQUEST_RETENTION_HOURS: number;
    USAGE_REQUEST_SWEEP_MS: number;
    ADMIN_TOKEN?: string;
    SERVICE_JWT_SECRET?: string;
    TRUST_PROXY: TrustProxy;
    AUTH_FAILURES_PER_IP: number;
    METRICS_TOKEN?: string;
    LOG_LEVEL: string;
    AUTH_URL: string;
    ACCOUNT_PAGE_AUTH_URL?: string;
  };
  return {
    host: parsed.HOST,
    port: parsed.USER_PORT,
    databaseUrl: parsed.DATABASE_URL,
    redisUrl: parsed.REDIS_URL,
    redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
    amqpUrl: parsed.AMQP_URL,
    balanceExchange: parsed.BALANCE_EXCHANGE,
    outboxPollMs: parsed.OUTBOX_POLL_MS,
    outboxRetryInitialMs: parsed.OUTBOX_RETRY_INITIAL_MS,
    outboxRetryMaxMs: parsed.OUTBOX_RETRY_MAX_MS,
    usageBatchMaxSize: parsed.USAGE_BATCH_MAX_SIZE,
    usageBatchMaxWaitMs: parsed.USAGE_BATCH_MAX_WAIT_MS,
    usageBatchLanes: parsed.USAGE_BATCH_LANES,
    usageRequestRetentionHours: parsed.USAGE_REQUEST_RETENTION_HOURS,
    usageRequestSweepMs: parsed.USAGE_REQUEST_SWEEP_MS,
    adminToken: parsed.ADMIN_TOKEN,
    serviceJwtSecret: parsed.SERVICE_JWT_SECRET,
    trustProxy: parsed.TRUST_PROXY,
    authFailuresPerIp: parsed.AUTH_FAILURES_PER_IP,
    metricsToken: parsed.METRICS_TOKEN,
    logLevel: parsed.LOG_LEVEL,
    accountPageAuthUrl: parsed.ACCOUNT_PAGE_AUTH_URL ?? parsed.AUTH_URL,
  };
}
