import { z } from 'zod';
import { adminTokenVariables, adminTokensOf, checkAdminTokens, env, parseEnv } from '@platform/runtime';
import { infrastructureVariables, standaloneOnly } from '@platform/infrastructure';

/** The auth service's variables, and the configuration they make: its type is this schema's output. */
function schema(requireInfrastructure: boolean, environment: NodeJS.ProcessEnv = {}) {
  const needed = standaloneOnly(requireInfrastructure);
  const { DATABASE_URL, DATABASE_DIRECT_URL, DATABASE_POOL_MAX, REDIS_URL, REDIS_CLUSTER_NODES } = infrastructureVariables(
    requireInfrastructure,
    environment,
  );
  return z
    .object({
      AUTH_PORT: env.port(8081).describe("The auth service's port (0: any free one)."),
      HOST: env.host(),
      DATABASE_URL,
      DATABASE_DIRECT_URL,
      DATABASE_POOL_MAX,
      REDIS_URL,
      REDIS_CLUSTER_NODES,
      REDIS_KEY_PREFIX: env.keyPrefix(),
      // The introspection endpoint's admin callers: ADMIN_TOKENS may stand instead of ADMIN_TOKEN (CONTRACT §7).
      ...adminTokenVariables(requireInfrastructure, environment),
      SERVICE_JWT_SECRET: needed(
        env
          .secret(32)
          .describe(
            "HS256 secret (≥ 32 characters) of the service JWTs: auth verifies the introspection callers' (audience `auth`), user the usage API's (audience `user`); `pnpm admin service-jwt` and product apps sign with it. Generated under `pnpm start`.",
          ),
      ),
      AUTH_URL: needed(
        env
          .url(['http', 'https'])
          .describe(
            "The auth service's public base URL: the issuer of its RFC 8414 metadata, never taken from the request. Unset under `pnpm start`: `http://127.0.0.1:<AUTH_PORT>`.",
          ),
      ),
      TOKEN_RATE_PER_ACCOUNT: env.positiveInt(600).describe('Token issuances allowed per account and minute, then 429.'),
      AUTH_FAILURES_PER_IP: env
        .positiveInt(30)
        .describe('Failed authentications (token, introspection, revocation) allowed per client address and minute, then 429.'),
      TRUST_PROXY: env.trustProxy(),
      METRICS_TOKEN: env.metricsToken(),
      METRICS_PORT: env.metricsPort(),
      LOG_LEVEL: env.logLevel(),
    })
    .superRefine(checkAdminTokens)
    .transform((parsed) => ({
      port: parsed.AUTH_PORT,
      host: parsed.HOST,
      /** Read by openInfrastructure only. */
      databaseUrl: parsed.DATABASE_URL,
      /** Unused by auth (it migrates nothing); accepted so that every service reads the same variables. */
      databaseDirectUrl: parsed.DATABASE_DIRECT_URL,
      /** Auth's pool is 2 connections, fewer when this is lower. */
      databasePoolMax: parsed.DATABASE_POOL_MAX,
      redisUrl: parsed.REDIS_URL,
      /** A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES), in place of REDIS_URL; read by openInfrastructure only. */
      redisClusterNodes: parsed.REDIS_CLUSTER_NODES,
      redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
      /** Accepted as Bearer callers of the introspection endpoint (ADMIN_TOKEN as `admin`, then ADMIN_TOKENS); none disables that caller. */
      adminTokens: adminTokensOf(parsed),
      /** HS256 secret of service JWTs (audience `auth`); undefined disables service callers. */
      serviceJwtSecret: parsed.SERVICE_JWT_SECRET,
      /**
       * Public base URL: the issuer of the RFC 8414 metadata, never taken from the request's Host.
       * AUTH_URL, required outside the embedded quickstart (which defaults it to 127.0.0.1 and the port).
       */
      publicUrl: (parsed.AUTH_URL ?? `http://127.0.0.1:${parsed.AUTH_PORT}`).replace(/\/+$/, ''),
      tokenRatePerAccount: parsed.TOKEN_RATE_PER_ACCOUNT,
      authFailuresPerIp: parsed.AUTH_FAILURES_PER_IP,
      trustProxy: parsed.TRUST_PROXY,
      /** Bearer token `/metrics` requires; undefined leaves it open. */
      metricsToken: parsed.METRICS_TOKEN,
      metricsPort: parsed.METRICS_PORT,
      logLevel: parsed.LOG_LEVEL,
    }));
}

/** Validated configuration of the auth service. */
export type AuthConfig = z.infer<ReturnType<typeof schema>>;

/** The variables' schema, read by scripts/config-docs.ts to write docs/configuration.md. */
export { schema as configSchema };

/**
 * Reads the auth service's variables. With `requireInfrastructure` (every start except the
 * embedded quickstart) DATABASE_URL, REDIS_URL, ADMIN_TOKEN (or ADMIN_TOKENS), SERVICE_JWT_SECRET and AUTH_URL are required;
 * every problem is reported together in one ConfigError.
 */
export function loadConfig(environment: NodeJS.ProcessEnv, { requireInfrastructure = true } = {}): AuthConfig {
  return parseEnv(schema(requireInfrastructure, environment), environment);
}
