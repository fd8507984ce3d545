import path from 'node:path';
import { z } from 'zod';
import { env, parseEnv, type TrustProxy } from '@platform/common';

/**
 * Default IAB_TAXONOMY_FILE: the copy of the IAB Content Taxonomy 2.2 that ships with the service
 * (`services/categorization/data`, beside `src/` and `dist/` alike, with its attribution).
 */
export const DEFAULT_TAXONOMY_FILE = path.resolve(__dirname, '../data/content-taxonomy-2.2.tsv');

export interface CategorizationConfig {
  port: number;
  host: string;
  /** Required standalone; the embedded quickstart provides a pool instead. */
  databaseUrl: string | undefined;
  /** Required standalone; the embedded quickstart provides a token store instead. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** Guards the admin API; when unset (embedded only) every admin call is refused. */
  adminToken: string | undefined;
  /** Absolute path of the IAB Content Taxonomy 2.2 TSV, imported at start when IAB rows are missing. */
  iabTaxonomyFile: string;
  /** How often a replica checks whether the categories changed. */
  refreshIntervalMs: number;
  trustProxy: TrustProxy;
  /** Failed admin-token attempts allowed per client address and minute (AUTH_FAILURES_PER_IP). */
  authFailuresPerIp: number;
  /** Bearer token `/metrics` requires; undefined leaves it open. */
  metricsToken: string | undefined;
  logLevel: string;
}

const INFRASTRUCTURE = ['DATABASE_URL', 'REDIS_URL', 'ADMIN_TOKEN'] as const;

function schema(requireInfrastructure: boolean) {
  return z
    .object({
      CATEGORIZATION_PORT: env.port(8083),
      HOST: z.string().default('127.0.0.1'),
      DATABASE_URL: env.url(['postgres', 'postgresql']).optional(),
      REDIS_URL: env.url(['redis', 'rediss']).optional(),
      REDIS_KEY_PREFIX: env.keyPrefix(),
      ADMIN_TOKEN: env.secret(16).optional(),
      IAB_TAXONOMY_FILE: z.string().optional(),
      CATEGORY_REFRESH_INTERVAL_MS: env.positiveInt(2000),
      TRUST_PROXY: env.trustProxy(),
      AUTH_FAILURES_PER_IP: env.positiveInt(30),
      METRICS_TOKEN: env.optionalSecret(16),
      LOG_LEVEL: env.logLevel(),
    })
    .superRefine((values, context) => {
      if (!requireInfrastructure) return;
      for (const name of INFRASTRUCTURE) {
        if (values[name] === undefined) context.addIssue({ code: z.ZodIssueCode.custom, path: [name], message: 'Required' });
      }
    });
}

/**
 * Reads the service's configuration from an environment (CONTRACT §1, docs/conventions.md). With
 * `requireInfrastructure` DATABASE_URL, REDIS_URL and ADMIN_TOKEN must be set; every bad or
 * missing variable is reported in one ConfigError. A relative IAB_TAXONOMY_FILE is taken from
 * the working directory.
 */
export function loadConfig(environment: NodeJS.ProcessEnv, { requireInfrastructure = true } = {}): CategorizationConfig {
  const values = parseEnv(schema(requireInfrastructure), environment);
  return {
    port: values.CATEGORIZATION_PORT,
    host: values.HOST,
    databaseUrl: values.DATABASE_URL,
    redisUrl: values.REDIS_URL,
    redisKeyPrefix: values.REDIS_KEY_PREFIX,
    adminToken: values.ADMIN_TOKEN,
    iabTaxonomyFile: values.IAB_TAXONOMY_FILE === undefined ? DEFAULT_TAXONOMY_FILE : path.resolve(values.IAB_TAXONOMY_FILE),
    refreshIntervalMs: values.CATEGORY_REFRESH_INTERVAL_MS,
    trustProxy: values.TRUST_PROXY,
    authFailuresPerIp: values.AUTH_FAILURES_PER_IP,
    metricsToken: values.METRICS_TOKEN,
    logLevel: values.LOG_LEVEL,
  };
}
