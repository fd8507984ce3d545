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
import { writePathSettings, writePathVariables } from './config-write-path';
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
        HOST: env.host(),
        USER_PORT: env.port(8082).describe("The user service's port (0: any free one)."),
        // The internal usage API on a port of its own (unset: on USER_PORT with the rest).
        USER_INTERNAL_PORT: z.coerce
          .number()
          .int()
          .min(0)
          .max(65_535)
          .optional()
          .describe(
            'A port of its own for the internal usage API (`/internal/v1/…`), to keep it off the public port. Unset: on `USER_PORT` with the rest.',
          ),
        DATABASE_URL,
        DATABASE_DIRECT_URL,
        DATABASE_POOL_MAX,
        REDIS_URL,
        REDIS_CLUSTER_NODES,
        REDIS_KEY_PREFIX: env.keyPrefix(),
        AMQP_URL,
        BALANCE_EXCHANGE: z
          .string()
          .min(1)
          .default(BALANCE_EXCHANGE)
          .describe('The topic exchange of the `balance.changed` events: the user service publishes to it, the notifier binds its queue.'),
        ...writePathVariables,
        // ADMIN_TOKENS may stand instead of ADMIN_TOKEN (CONTRACT §7).
        ...adminTokenVariables(requireInfrastructure, environment),
        SERVICE_JWT_SECRET: needed(env.secret(JWT_SECRET_MIN)).describe(
          "HS256 secret (≥ 32 characters) of the service JWTs: auth verifies the introspection callers' (audience `auth`), user the usage API's (audience `user`); `pnpm admin service-jwt` and product apps sign with it. Generated under `pnpm start`.",
        ),
        // Accepted beside SERVICE_JWT_SECRET while a rotation rolls out (docs/operations.md).
        SERVICE_JWT_SECRET_PREVIOUS: env
          .optionalSecret(JWT_SECRET_MIN)
          .describe(
            'The secret before the last rotation, still accepted for service JWTs while the rotation rolls out (docs/operations.md). Unset: none.',
          ),
        TRUST_PROXY: env.trustProxy(),
        AUTH_FAILURES_PER_IP: env.positiveInt(30).describe('Failed admin-token attempts allowed per client address and minute, then 429.'),
        METRICS_TOKEN: env.metricsToken(),
        METRICS_PORT: env.metricsPort(),
        LOG_LEVEL: env.logLevel(),
        AUTH_URL: z
          .string()
          .url()
          .default('http://127.0.0.1:8081')
          .describe("The auth service's base URL, for the account page (unless `ACCOUNT_PAGE_AUTH_URL` is set)."),
        ACCOUNT_PAGE_AUTH_URL: z
          .string()
          .url()
          .optional()
          .describe(
            "The auth service's address as customers' browsers reach it (account page sign-in and sign-out, its CSP). Unset: `AUTH_URL`; under `pnpm start`, the auth service it started.",
          ),
        TOP_UP_URL: env
          .url(['https', 'http'])
          .optional()
          .describe(
            "The operator's billing page (`https` or `http`), where the account page and the e-mails send a customer to buy credits. Unset: no such link.",
          ),
        BRAND_NAME: z
          .string()
          .max(100)
          .default('Account access')
          .describe(
            "The product's name: on the account page (user), in the e-mails and, unless `MAIL_FROM` is set, as their sender's name (notifier); at most 100 characters.",
          ),
        WEBHOOK_ALLOW_INSECURE: env
          .bool(false)
          .describe(
            'Development and tests only: webhooks may go to `http` and to any address (the address checks are lifted). Refused at start when `NODE_ENV=production`; a warning in the log otherwise.',
          ),
        ACCESS_REPAIR_SWEEP_MS: env
          .positiveInt(5000)
          .describe('How often the access records a killed process left unsettled are rewritten from Postgres (ms; also once at start).'),
        // At most 60 s between a reservation's expiresAt and its return (CONTRACT §7.1).
        RESERVATION_SWEEP_MS: env
          .positiveInt(10_000)
          .refine((ms) => ms <= 50_000)
          .describe(
            'Pause between sweeps of reservations past their `expiresAt` (ms, at most 50000: each comes back within 60 s, CONTRACT §7.1).',
          ),
        TEST_PAUSE_AT: z
          .string()
          .regex(/^[a-z-]+(@[1-9][0-9]*)?$/)
          .optional()
          .describe(
            'Fault tests only: the step where the process pauses until SIGUSR2 (`step` or `step@n`). Refused when `NODE_ENV=production`.',
          ),
        NODE_ENV: nodeEnv(),
        TEST_FAULT: z
          .string()
          .regex(TEST_FAULTS)
          .optional()
          .describe(
            'Chaos runs only: a fault the service makes on purpose (see `services/user/src/test-fault.ts`). Refused when `NODE_ENV=production`.',
          ),
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
        ...writePathSettings(parsed),
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
        metricsPort: parsed.METRICS_PORT,
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

/** The variables' schema, read by scripts/config-docs.ts to write docs/configuration.md. */
export { schema as configSchema };

/**
 * The user service's configuration. With `requireInfrastructure` (every mode but the embedded
 * quickstart) DATABASE_URL, REDIS_URL, AMQP_URL, ADMIN_TOKEN (or ADMIN_TOKENS) and SERVICE_JWT_SECRET are
 * required, reported together in one ConfigError.
 */
export function loadConfig(environment: NodeJS.ProcessEnv, { requireInfrastructure = true } = {}): UserConfig {
  return parseEnv(schema(requireInfrastructure, environment), environment);
}
