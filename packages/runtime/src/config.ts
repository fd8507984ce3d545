import { isIP } from 'node:net';
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Validates an environment against a zod schema. On failure throws one ConfigError naming
 * every bad variable, e.g. `invalid configuration: REDIS_URL: Required; AUTH_PORT: Expected number`.
 */
export function parseEnv<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data as z.infer<S>;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
}

/**
 * Which proxies in front of a service may name the client address in `X-Forwarded-For`
 * (CONTRACT §9), in a form express's `trust proxy` setting takes: `false` (none, the default),
 * a number of hops, or proxy addresses/CIDRs (and express's names `loopback`, `linklocal`,
 * `uniquelocal`). Only the entries those proxies appended are read.
 */
export type TrustProxy = false | number | string[];

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, an address/prefix within its family's width, or one of express's names. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

const TRUST_PROXY_FORMS =
  "use false, a number of proxy hops, or a comma-separated list of the proxies' addresses/CIDRs (loopback, linklocal, uniquelocal also accepted)";

function parseTrustProxy(raw: string, context: z.RefinementCtx): TrustProxy {
  const value = raw.trim().toLowerCase();
  if (value === 'false' || value === '0') return false;
  if (/^[0-9]{1,2}$/.test(value)) return Number(value);
  // `true` trusts every hop: a client that reaches the service directly would pick its own address.
  const reason = value === 'true' ? `true would let any client choose its address; ${TRUST_PROXY_FORMS}` : TRUST_PROXY_FORMS;
  const entries = value.split(',').map((entry) => entry.trim());
  if (value === 'true' || !entries.every(isProxyEntry)) {
    context.addIssue({ code: z.ZodIssueCode.custom, message: reason });
    return z.NEVER;
  }
  return entries;
}

/** Reusable field schemas for service configs. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  /** HOST: the address every service listens on. */
  host: () => z.string().default('127.0.0.1').describe('The address the service listens on; `0.0.0.0` in containers.'),
  url: (protocols: string[]) =>
    z
      .string()
      .url()
      .refine((value) => protocols.some((protocol) => value.startsWith(`${protocol}:`)), {
        message: `must be a ${protocols.join(' or ')} URL`,
      }),
  /**
   * One URL or several, comma-separated (AMQP_URL: the nodes of a cluster, tried in order). The
   * value stays the string as given (spaces around commas dropped); each entry is checked like `url`.
   */
  urlList: (protocols: string[]) =>
    z
      .string()
      .transform((value) => value.split(',').map((entry) => entry.trim()))
      .refine(
        (entries) =>
          entries.every((entry) => z.string().url().safeParse(entry).success && protocols.some((p) => entry.startsWith(`${p}:`))),
        {
          message: `must be a ${protocols.join(' or ')} URL, or several separated by commas`,
        },
      )
      .transform((entries) => entries.join(',')),
  secret: (minLength: number) => z.string().min(minLength, `must be at least ${minLength} characters`),
  /** `true`/`false`/`1`/`0`, any case (`TRUST_PROXY=TRUE` is not worth a failed start). */
  bool: (fallback: boolean) =>
    z.preprocess(
      (value) => (typeof value === 'string' ? value.toLowerCase() : value),
      z
        .enum(['true', 'false', '1', '0'])
        .default(fallback ? 'true' : 'false')
        .transform((value) => value === 'true' || value === '1'),
    ),
  /** TRUST_PROXY (CONTRACT §9): false by default; `true` is refused with the accepted forms. */
  trustProxy: () =>
    z
      .string()
      .optional()
      .transform((value, context): TrustProxy => (value === undefined ? false : parseTrustProxy(value, context)))
      .describe(
        "Which proxies may name the client address in `X-Forwarded-For` (the failure limits count it): `false` (unset), the connecting address; a hop count; or a comma-separated list of the proxies' addresses/CIDRs (`10.0.0.0/8,192.0.2.7`; `loopback`, `linklocal`, `uniquelocal` too), of which only what they appended is read. `true` is refused at start.",
      ),
  /** An optional bearer token (METRICS_TOKEN): unset leaves the endpoint open. */
  optionalSecret: (minLength: number) => z.string().min(minLength, `must be at least ${minLength} characters`).optional(),
  /** METRICS_TOKEN: every service's `/metrics` bearer token. */
  metricsToken: () =>
    z
      .string()
      .min(16, 'must be at least 16 characters')
      .optional()
      .describe(
        'When set (≥ 16 characters), `GET /metrics` needs `Authorization: Bearer <METRICS_TOKEN>`; unset, `/metrics` is open to whoever reaches the port (the k8s manifests set it).',
      ),
  /** METRICS_PORT: `/metrics` on a port of its own, and not on the service port. */
  metricsPort: () =>
    z.coerce
      .number()
      .int()
      .min(0)
      .max(65535)
      .optional()
      .describe(
        'When set, `GET /metrics` is served on this port alone and answers 404 on the service port, so that monitoring can be admitted to metrics and nothing else (the k8s manifests set 9464); `METRICS_TOKEN` applies there too. Unset, `/metrics` is on the service port.',
      ),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  /** REDIS_KEY_PREFIX: no `{` or `}`, so that the hash tags of the keys under it pick their Redis Cluster slot. */
  keyPrefix: () =>
    z
      .string()
      .regex(/^[^{}]*$/, 'must not contain { or }')
      .default('aap:')
      .describe("Prefix of every Redis key; no `{` or `}`: the keys' hash tags pick their Redis Cluster slot."),
  logLevel: () =>
    z
      .enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'])
      .default('info')
      .describe('The least severe log level written: `error`, `warn`, `info`, `http`, `verbose`, `debug` or `silly`.'),
};

/** NODE_ENV, read only to refuse the switches that exist for tests (refuseTestSwitchesInProduction). */
export const nodeEnv = () =>
  z
    .string()
    .optional()
    .describe(
      "`production` in the images (express's production behaviour); then the switches that exist for tests (`WEBHOOK_ALLOW_INSECURE`, `TEST_PAUSE_AT`, `TEST_FAULT`) stop the start, and the notifier requires `ACCOUNT_PAGE_URL`.",
    );

/**
 * CONTRACT §1: switches that exist for tests (pause points, relaxed address checks) are refused
 * at start when NODE_ENV=production, each named (a schema's `superRefine` over its variables). A
 * switch is on when it is set and not false.
 */
export function refuseTestSwitchesInProduction<K extends string>(names: readonly K[]) {
  return (parsed: { NODE_ENV?: string | undefined } & Partial<Record<K, unknown>>, context: z.RefinementCtx): void => {
    if (parsed.NODE_ENV !== 'production') return;
    for (const name of names) {
      const value = parsed[name];
      if (value !== undefined && value !== false)
        context.addIssue({ code: 'custom', path: [name], message: 'exists for tests only; refused when NODE_ENV=production' });
    }
  };
}

/** Outside production a test switch works, said once at start: `WEBHOOK_ALLOW_INSECURE=true` is a warning in the log. */
export function warnTestSwitches(logger: { warn(message: string, meta?: object): unknown }, switches: Record<string, boolean>): void {
  for (const [name, on] of Object.entries(switches))
    if (on) logger.warn(`${name} is on: a switch for development and tests, refused when NODE_ENV=production`, { variable: name });
}
