import path from 'node:path';
import { z } from 'zod';
import { env, parseEnv } from '@platform/runtime';
import { infrastructureVariables, standaloneOnly } from '@platform/infrastructure';

/**
 * Default IAB_TAXONOMY_FILE: the copy of the IAB Content Taxonomy 2.2 that ships with the service
 * (`services/categorization/data`, beside `src/` and `dist/` alike, with its attribution).
 */
export const DEFAULT_TAXONOMY_FILE = path.resolve(__dirname, '../data/content-taxonomy-2.2.tsv');

/** The service's variables, and the configuration they make: its type is this schema's output. */
function schema(requireInfrastructure: boolean) {
  const needed = standaloneOnly(requireInfrastructure);
  const { DATABASE_URL, DATABASE_DIRECT_URL, DATABASE_POOL_MAX, REDIS_URL } = infrastructureVariables(requireInfrastructure);
  return z
    .object({
      CATEGORIZATION_PORT: env.port(8083),
      HOST: z.string().default('127.0.0.1'),
      DATABASE_URL,
      DATABASE_DIRECT_URL,
      DATABASE_POOL_MAX,
      REDIS_URL,
      REDIS_KEY_PREFIX: env.keyPrefix(),
      ADMIN_TOKEN: needed(env.secret(16)),
      IAB_TAXONOMY_FILE: z.string().optional(),
      CATEGORY_REFRESH_INTERVAL_MS: env.positiveInt(2000),
      TRUST_PROXY: env.trustProxy(),
      AUTH_FAILURES_PER_IP: env.positiveInt(30),
      METRICS_TOKEN: env.optionalSecret(16),
      LOG_LEVEL: env.logLevel(),
    })
    .transform((values) => ({
      port: values.CATEGORIZATION_PORT,
      host: values.HOST,
      /** Read by openInfrastructure only; undefined only in the embedded quickstart. */
      databaseUrl: values.DATABASE_URL,
      databaseDirectUrl: values.DATABASE_DIRECT_URL,
      databasePoolMax: values.DATABASE_POOL_MAX,
      redisUrl: values.REDIS_URL,
      redisKeyPrefix: values.REDIS_KEY_PREFIX,
      /** Guards the admin API; when unset (embedded only) every admin call is refused. */
      adminToken: values.ADMIN_TOKEN,
      /** Absolute path of the IAB Content Taxonomy 2.2 TSV, imported at start when IAB rows are missing. */
      iabTaxonomyFile: values.IAB_TAXONOMY_FILE === undefined ? DEFAULT_TAXONOMY_FILE : path.resolve(values.IAB_TAXONOMY_FILE),
      /** How often a replica checks whether the categories changed. */
      refreshIntervalMs: values.CATEGORY_REFRESH_INTERVAL_MS,
      trustProxy: values.TRUST_PROXY,
      /** Failed admin-token attempts allowed per client address and minute (AUTH_FAILURES_PER_IP). */
      authFailuresPerIp: values.AUTH_FAILURES_PER_IP,
      /** Bearer token `/metrics` requires; undefined leaves it open. */
      metricsToken: values.METRICS_TOKEN,
      logLevel: values.LOG_LEVEL,
    }));
}

export type CategorizationConfig = z.infer<ReturnType<typeof schema>>;

/**
 * Reads the service's configuration from an environment (CONTRACT §1, docs/conventions.md). With
 * `requireInfrastructure` DATABASE_URL, REDIS_URL and ADMIN_TOKEN must be set; every bad or
 * missing variable is reported in one ConfigError. A relative IAB_TAXONOMY_FILE is taken from
 * the working directory.
 */
export function loadConfig(environment: NodeJS.ProcessEnv, { requireInfrastructure = true } = {}): CategorizationConfig {
  return parseEnv(schema(requireInfrastructure), environment);
}
