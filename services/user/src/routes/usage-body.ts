import { absentIfEmpty } from '@platform/kernel';
import { z } from 'zod';
import { MAX_ID } from '../domain/integer-field';
import { MAX_REQUEST_ID_LENGTH, MAX_UNITS } from '../domain/usage';
import { optionalInteger, requiredInteger } from './schemas';

// A UTF-16 half without its other half: Postgres (UTF-8) cannot hold it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `requestId`: a non-empty string of at most 200 characters without control characters (NUL
 * above all, which Postgres text cannot hold). A lone surrogate becomes U+FFFD, as UTF-8 encoding
 * always stored it; the id is then the same string in memory (batching, replays) as in the table.
 */
const requestIdMember = absentIfEmpty(
  z
    .string()
    .max(MAX_REQUEST_ID_LENGTH)
    .refine((id) => !/\p{Cc}/u.test(id))
    .transform((id) => id.replace(LONE_SURROGATE, '\uFFFD')),
).openapi({ type: 'string', minLength: 1, maxLength: MAX_REQUEST_ID_LENGTH, description: 'Idempotency key, global.' });

/**
 * The body of `POST /internal/v1/usage` (CONTRACT §7, §9), read after the credential: numeric
 * strings allowed, `units` 1–10,000 (default 1). Every problem is reported together (422), with
 * a product id the catalogue does not know (the domain's `usageProduct`).
 */
export const UsageBody = z
  .object({
    // Checked before the body (401): a request that reaches the body has a string here.
    credential: z.string().openapi({ description: "The customer's API key or access token." }),
    requestId: requestIdMember,
    productId: requiredInteger(1, MAX_ID).openapi({ description: 'Catalogue product id (numeric strings allowed).' }),
    units: optionalInteger(1, MAX_UNITS).openapi({ default: 1 }),
  })
  .openapi({ example: { credential: `at_${'x'.repeat(29)}`, requestId: 'search-7f3c2a', productId: 1, units: 1 } });

// What plainUsageBody leaves to the schema in a requestId: a control character (refused), a lone
// UTF-16 surrogate (replaced). In `u` mode a surrogate pair is one code point, not in the class.
const UNPLAIN_ID = /[\p{Cc}\uD800-\uDFFF]/u;
const isWhole = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/**
 * The usage body as product apps send it (JSON integers, a requestId of ordinary characters),
 * read without zod: what `UsageBody` would answer, or undefined for the schema to decide. The
 * schema costs a usage request about a sixth of its CPU (docs/benchmarks.md).
 */
export function plainUsageBody(raw: unknown): z.output<typeof UsageBody> | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const { credential, requestId, productId, units } = raw as Record<string, unknown>;
  if (typeof credential !== 'string' || typeof requestId !== 'string') return undefined;
  if (requestId.length === 0 || requestId.length > MAX_REQUEST_ID_LENGTH || UNPLAIN_ID.test(requestId)) return undefined;
  if (!isWhole(productId, 1, MAX_ID) || !(units === undefined || isWhole(units, 1, MAX_UNITS))) return undefined;
  return { credential, requestId, productId, units };
}
