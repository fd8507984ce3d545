import path from 'node:path';
import { z } from 'zod';
import { adminTokenVariables, adminTokensOf, checkAdminTokens, env, parseEnv } from '@platform/runtime';
import { infrastructureVariables } from '@platform/infrastructure';

/**
 * Default IAB_TAXONOMY_FILE: the copy of the IAB Content Taxonomy 2.2 that ships with the service
 * (`services/categorization/data`, beside `src/` and `dist/` alike, with its attribution).
 */
export const DEFAULT_TAXONOMY_FILE = path.resolve(__dirname, '../data/content-taxonomy-2.2.tsv');

/** The service's variables, and the configuration they make: its type is this schema's output. */
function schema(requireInfrastructure: boolean, environment: NodeJS.ProcessEnv = {}) {
  const { DATABASE_URL, DATABASE_DIRECT_URL, DATABASE_POOL_MAX, REDIS_URL, REDIS_CLUSTER_NODES } = infrastructureVariables(
    requireInfrastructure,
    environment,
  );
  return z
    .object({
      CATEGORIZATION_PORT: env.port(8083).describe("The categorization service's port (0: any free one)."),
      HOST: env.host(),
      DATABASE_URL,
      DATABASE_DIRECT_URL,
      DATABASE_POOL_MAX,
      REDIS_URL,
      REDIS_CLUSTER_NODES,
      REDIS_KEY_PREFIX: env.keyPrefix(),
      // ADMIN_TOKENS may stand instead of ADMIN_TOKEN (CONTRACT §7).
      ...adminTokenVariables(requireInfrastructure, environment),
      IAB_TAXONOMY_FILE: z
        .string()
        .optional()
        .describe(
          'The IAB Content Taxonomy TSV imported at start when no IAB row is stored (relative to the working directory). Unset: `services/categorization/data/content-taxonomy-2.2.tsv`, which ships with the service.',
        ),
      CATEGORY_REFRESH_INTERVAL_MS: env.positiveInt(2000).describe('How often a replica checks for category changes (ms).'),
      TRUST_PROXY: env.trustProxy(),
      AUTH_FAILURES_PER_IP: env.positiveInt(30).describe('Failed admin-token attempts allowed per client address and minute, then 429.'),
      METRICS_TOKEN: env.metricsToken(),
      METRICS_PORT: env.metricsPort(),
      LOG_LEVEL: env.logLevel(),
    })
    .superRefine(checkAdminTokens)
    .transform((values) => ({
      port: values.CATEGORIZATION_PORT,
      host: values.HOST,
      /** Read by openInfrastructure only; undefined only in the embedded quickstart. */
      databaseUrl: values.DATABASE_URL,
      databaseDirectUrl: values.DATABASE_DIRECT_URL,
      databasePoolMax: values.DATABASE_POOL_MAX,
      redisUrl: values.REDIS_URL,
      /** A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES), in place of REDIS_URL; read by openInfrastructure only. */
      redisClusterNodes: values.REDIS_CLUSTER_NODES,
      redisKeyPrefix: values.REDIS_KEY_PREFIX,
      /** ADMIN_TOKEN (name `admin`) and the named ADMIN_TOKENS; the admin API takes any of them (CONTRACT §7); none (embedded only) refuses every admin call. */
      adminTokens: adminTokensOf(values),
      /** Absolute path of the IAB Content Taxonomy 2.2 TSV, imported at start when IAB rows are missing. */
      iabTaxonomyFile: values.IAB_TAXONOMY_FILE === undefined ? DEFAULT_TAXONOMY_FILE : path.resolve(values.IAB_TAXONOMY_FILE),
      /** How often a replica checks whether the categories changed. */
      refreshIntervalMs: values.CATEGORY_REFRESH_INTERVAL_MS,
      trustProxy: values.TRUST_PROXY,
      /** Failed admin-token attempts allowed per client address and minute (AUTH_FAILURES_PER_IP). */
      authFailuresPerIp: values.AUTH_FAILURES_PER_IP,
      /** Bearer token `/metrics` requires; undefined leaves it open. */
      metricsToken: values.METRICS_TOKEN,
      metricsPort: values.METRICS_PORT,
      logLevel: values.LOG_LEVEL,
    }));
}

export type CategorizationConfig = z.infer<ReturnType<typeof schema>>;

/** The variables' schema, read by scripts/config-docs.ts to write docs/configuration.md. */
export { schema as configSchema };

/**
 * Reads the service's configuration from an environment (CONTRACT §1, docs/conventions.md). With
 * `requireInfrastructure` DATABASE_URL, REDIS_URL and ADMIN_TOKEN (or ADMIN_TOKENS) must be set; every bad or
 * missing variable is reported in one ConfigError. A relative IAB_TAXONOMY_FILE is taken from
 * the working directory.
 */
export function loadConfig(environment: NodeJS.ProcessEnv, { requireInfrastructure = true } = {}): CategorizationConfig {
  return parseEnv(schema(requireInfrastructure, environment), environment);
}
