import { z } from 'zod';
import {
  adminTokenVariables,
  adminTokensOf,
  checkAdminTokens,
  env,
  nodeEnv,
  parseEnv,
  refuseTestSwitchesInProduction,
} from '@platform/runtime';
import { BALANCE_EXCHANGE } from '@platform/events';
import { infrastructureVariables, standaloneOnly } from '@platform/infrastructure';
import { TEST_FAULTS } from './test-fault';

const JWT_SECRET_MIN = 32;

/** The user service's variables, and the configuration they make: its type is this schema's output. */
function schema(requireInfrastructure: boolean, environment: NodeJS.ProcessEnv = {}) {
  const needed = standaloneOnly(requireInfrastructure);
  const { DATABASE_URL, DATABASE_DIRECT_URL, DATABASE_POOL_MAX, REDIS_URL, REDIS_CLUSTER_NODES, AMQP_URL } = infrastructureVariables(
    requireInfrastructure,
    environment,
  );
  return (
    z
      .object({
        HOST: z.string().default('127.0.0.1'),
        USER_PORT: env.port(8082),
        // The internal usage API on a port of its own (unset: on USER_PORT with the rest).
        USER_INTERNAL_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
        DATABASE_URL,
        DATABASE_DIRECT_URL,
        DATABASE_POOL_MAX,
        REDIS_URL,
        REDIS_CLUSTER_NODES,
        REDIS_KEY_PREFIX: env.keyPrefix(),
        AMQP_URL,
        BALANCE_EXCHANGE: z.string().min(1).default(BALANCE_EXCHANGE),
        OUTBOX_POLL_MS: env.positiveInt(500),
        OUTBOX_WAKE_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(50),
        OUTBOX_RETRY_INITIAL_MS: env.positiveInt(500),
        OUTBOX_RETRY_MAX_MS: env.positiveInt(10_000),
        OUTBOX_RETENTION_HOURS: z.coerce.number().int().min(0).default(24),
        OUTBOX_SWEEP_MS: env.positiveInt(10_000),
        // 64 KiB; at least 1 KiB (a few events), at most 16 MiB (RabbitMQ 4's default max_message_size).
        OUTBOX_MESSAGE_MAX_BYTES: z.coerce
          .number()
          .int()
          .min(1024)
          .max(16 * 1024 * 1024)
          .default(65_536),
        USAGE_BATCH_MAX_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
        USAGE_BATCH_MAX_WAIT_MS: z.coerce.number().int().min(0).max(1000).default(0),
        USAGE_BATCH_LANES: z.coerce.number().int().min(1).max(64).default(1),
        // CONTRACT §9: a requestId is remembered for at least 24 hours.
        USAGE_REQUEST_RETENTION_HOURS: z.coerce.number().int().min(24).default(25),
        USAGE_REQUEST_SWEEP_MS: env.positiveInt(10_000),
        // ADMIN_TOKENS may stand instead of ADMIN_TOKEN (CONTRACT §7).
        ...adminTokenVariables(requireInfrastructure, environment),
        SERVICE_JWT_SECRET: needed(env.secret(JWT_SECRET_MIN)),
        // Accepted beside SERVICE_JWT_SECRET while a rotation rolls out (docs/operations.md).
        SERVICE_JWT_SECRET_PREVIOUS: env.optionalSecret(JWT_SECRET_MIN),
        TRUST_PROXY: env.trustProxy(),
        AUTH_FAILURES_PER_IP: env.positiveInt(30),
        METRICS_TOKEN: env.optionalSecret(16),
        LOG_LEVEL: env.logLevel(),
        AUTH_URL: z.string().url().default('http://127.0.0.1:8081'),
        ACCOUNT_PAGE_AUTH_URL: z.string().url().optional(),
        TOP_UP_URL: env.url(['https', 'http']).optional(),
        BRAND_NAME: z.string().max(100).default('Account access'),
        WEBHOOK_ALLOW_INSECURE: env.bool(false),
        ACCESS_REPAIR_SWEEP_MS: env.positiveInt(5000),
        // At most 60 s between a reservation's expiresAt and its return (CONTRACT §7.1).
        RESERVATION_SWEEP_MS: env.positiveInt(10_000).refine((ms) => ms <= 50_000),
        TEST_PAUSE_AT: z
          .string()
          .regex(/^[a-z-]+(@[1-9][0-9]*)?$/)
          .optional(),
        NODE_ENV: nodeEnv(),
        TEST_FAULT: z.string().regex(TEST_FAULTS).optional(),
      })
      // The usage lanes' connections come out of the process's DATABASE_POOL_MAX (openInfrastructure).
      .refine((parsed) => parsed.DATABASE_POOL_MAX > parsed.USAGE_BATCH_LANES, {
        message: 'must be more than USAGE_BATCH_LANES (the usage batches take that many of its connections)',
        path: ['DATABASE_POOL_MAX'],
      })
      .superRefine(checkAdminTokens)
      .superRefine(refuseTestSwitchesInProduction(['TEST_PAUSE_AT', 'TEST_FAULT', 'WEBHOOK_ALLOW_INSECURE']))
      .transform((parsed) => ({
        host: parsed.HOST,
        port: parsed.USER_PORT,
        /** Where the internal usage API listens, alone (USER_INTERNAL_PORT); undefined: on `port` with the rest. */
        internalPort: parsed.USER_INTERNAL_PORT,
        /** Read by openInfrastructure only; undefined only in the embedded quickstart. */
        databaseUrl: parsed.DATABASE_URL,
        databaseDirectUrl: parsed.DATABASE_DIRECT_URL,
        databasePoolMax: parsed.DATABASE_POOL_MAX,
        redisUrl: parsed.REDIS_URL,
        /** A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES), in place of REDIS_URL; read by openInfrastructure only. */
        redisClusterNodes: parsed.REDIS_CLUSTER_NODES,
        redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
        amqpUrl: parsed.AMQP_URL,
        /** Topic exchange the relay publishes `balance.changed` to (BALANCE_EXCHANGE). */
        balanceExchange: parsed.BALANCE_EXCHANGE,
        /** How often the relay looks for unpublished events when nothing woke it (OUTBOX_POLL_MS). */
        outboxPollMs: parsed.OUTBOX_POLL_MS,
        /**
         * How long the relay lets a commit's wake wait for others (OUTBOX_WAKE_DELAY_MS): under load
         * one round then publishes the events of several usage batches. 0: at once.
         */
        outboxWakeDelayMs: parsed.OUTBOX_WAKE_DELAY_MS,
        /** Relay backoff after a failed publish: initial, doubling up to max (OUTBOX_RETRY_INITIAL_MS / _MAX_MS). */
        outboxRetryInitialMs: parsed.OUTBOX_RETRY_INITIAL_MS,
        outboxRetryMaxMs: parsed.OUTBOX_RETRY_MAX_MS,
        /** How long a published event stays in the outbox before it is swept (OUTBOX_RETENTION_HOURS; 0: at the next sweep). */
        outboxRetentionHours: parsed.OUTBOX_RETENTION_HOURS,
        /** Pause between sweeps of published events (OUTBOX_SWEEP_MS). */
        outboxSweepMs: parsed.OUTBOX_SWEEP_MS,
        /**
         * Largest `balance.events` message the relay publishes with several events (OUTBOX_MESSAGE_MAX_BYTES,
         * default 64 KiB, about 280 events); a commit's events beyond it go as several messages.
         */
        outboxMessageMaxBytes: parsed.OUTBOX_MESSAGE_MAX_BYTES,
        /** Usage debits per batch (one transaction) at most (USAGE_BATCH_MAX_SIZE). */
        usageBatchMaxSize: parsed.USAGE_BATCH_MAX_SIZE,
        /** How long the first debit reaching an idle batch lane waits for others (USAGE_BATCH_MAX_WAIT_MS; 0: the rest of the event-loop turn). */
        usageBatchMaxWaitMs: parsed.USAGE_BATCH_MAX_WAIT_MS,
        /**
         * Usage batches committing at once (USAGE_BATCH_LANES); one pool is always in one lane. One
         * by default: on two cores, two lanes halved the batches of usage-many-accounts and cost
         * ~15 % more CPU per debit. More lanes suit more cores.
         */
        usageBatchLanes: parsed.USAGE_BATCH_LANES,
        /** How long a usage requestId's answer is kept, at least 24 h (USAGE_REQUEST_RETENTION_HOURS). */
        usageRequestRetentionHours: parsed.USAGE_REQUEST_RETENTION_HOURS,
        /** Pause between sweeps of expired usage requestIds (USAGE_REQUEST_SWEEP_MS). */
        usageRequestSweepMs: parsed.USAGE_REQUEST_SWEEP_MS,
        /** Every admin token (the embedded quickstart generates ADMIN_TOKEN when unset) with the name it acts under: ADMIN_TOKEN as `admin`, then ADMIN_TOKENS. */
        adminTokens: adminTokensOf(parsed),
        /** Verifies service JWTs on the internal usage API. */
        serviceJwtSecret: parsed.SERVICE_JWT_SECRET,
        /** The secret before the last rotation, still accepted for service JWTs (SERVICE_JWT_SECRET_PREVIOUS). */
        previousServiceJwtSecret: parsed.SERVICE_JWT_SECRET_PREVIOUS,
        /** Which proxies may name the client address (TRUST_PROXY). */
        trustProxy: parsed.TRUST_PROXY,
        /** Failed admin-token attempts allowed per client address and minute (AUTH_FAILURES_PER_IP). */
        authFailuresPerIp: parsed.AUTH_FAILURES_PER_IP,
        /** Bearer token `/metrics` requires; undefined leaves it open. */
        metricsToken: parsed.METRICS_TOKEN,
        logLevel: parsed.LOG_LEVEL,
        /** The auth service's base URL as customers' browsers reach it, for the account page (ACCOUNT_PAGE_AUTH_URL, else AUTH_URL). */
        accountPageAuthUrl: parsed.ACCOUNT_PAGE_AUTH_URL ?? parsed.AUTH_URL,
        /** The operator's billing page, where the account page sends a customer to buy credits (TOP_UP_URL; unset: none). */
        topUpUrl: parsed.TOP_UP_URL,
        /** The product's name on the account page (BRAND_NAME). */
        brandName: parsed.BRAND_NAME,
        /** Webhooks may go to http and to any address (WEBHOOK_ALLOW_INSECURE; development and tests only). */
        webhookAllowInsecure: parsed.WEBHOOK_ALLOW_INSECURE,
        /**
         * How often the access records a killed process left unsettled are rewritten from Postgres
         * (ACCESS_REPAIR_SWEEP_MS; also once at start): its committed grants, its closing writes.
         */
        accessRepairSweepMs: parsed.ACCESS_REPAIR_SWEEP_MS,
        /** How often reservations past their expiresAt are released (RESERVATION_SWEEP_MS, at most 50 s). */
        reservationSweepMs: parsed.RESERVATION_SWEEP_MS,
        /** Fault tests only: the step where the process pauses until SIGUSR2 (TEST_PAUSE_AT, see pause-point.ts). */
        testPauseAt: parsed.TEST_PAUSE_AT,
        /** Chaos runs only: a fault the product makes on purpose (TEST_FAULT, see test-fault.ts). */
        testFault: parsed.TEST_FAULT,
      }))
  );
}

export type UserConfig = z.infer<ReturnType<typeof schema>>;

/**
 * The user service's configuration. With `requireInfrastructure` (every mode but the embedded
 * quickstart) DATABASE_URL, REDIS_URL, AMQP_URL, ADMIN_TOKEN (or ADMIN_TOKENS) and SERVICE_JWT_SECRET are
 * required, reported together in one ConfigError.
 */
export function loadConfig(environment: NodeJS.ProcessEnv, { requireInfrastructure = true } = {}): UserConfig {
  return parseEnv(schema(requireInfrastructure, environment), environment);
}
