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

/** Reusable field schemas for service configs. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  url: (protocols: string[]) =>
    z
      .string()
      .url()
      .refine((value) => protocols.some((protocol) => value.startsWith(`${protocol}:`)), {
        message: `must be a ${protocols.join(' or ')} URL`,
      }),
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
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  /** REDIS_KEY_PREFIX: no `{` or `}`, so that the hash tags of the keys under it pick their Redis Cluster slot. */
  keyPrefix: () =>
    z
      .string()
      .regex(/^[^{}]*$/, 'must not contain { or }')
      .default('aap:'),
  logLevel: () => z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']).default('info'),
};
