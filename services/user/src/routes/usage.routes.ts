import { Router } from 'express';
import { AppError } from '@platform/wire';
import { absentIfEmpty, adminEdge, declareRoute, locals, logLevelEnabled, mountRoute, respond } from '@platform/kernel';
import { z } from 'zod';
import type { UserDeps } from '../deps';
import type { CatalogueReads, Product } from '../domain/catalogue';
import { MAX_ID } from '../domain/integer-field';
import { MAX_REQUEST_ID_LENGTH, MAX_UNITS, usageProduct, type UsageRecorder, type UsageRequest } from '../domain/usage';
import { optionalInteger, requiredInteger, UsageGrant } from './schemas';
import { createServiceJwtCheck } from './service-jwt-check';

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
function plainUsageBody(raw: unknown): z.output<typeof UsageBody> | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const { credential, requestId, productId, units } = raw as Record<string, unknown>;
  if (typeof credential !== 'string' || typeof requestId !== 'string') return undefined;
  if (requestId.length === 0 || requestId.length > MAX_REQUEST_ID_LENGTH || UNPLAIN_ID.test(requestId)) return undefined;
  if (!isWhole(productId, 1, MAX_ID) || !(units === undefined || isWhole(units, 1, MAX_UNITS))) return undefined;
  return { credential, requestId, productId, units };
}

/** `POST /internal/v1/usage`: the body's shape is its schema's; whether the product exists, the catalogue's. */
export const usageRoute = declareRoute({
  methods: ['post'],
  paths: ['/internal/v1/usage'],
  edge: adminEdge,
  summary: 'Debit a product pool for a customer call (internal, product services)',
  description:
    'Service JWT (HS256, audience `user`, `exp` at most 5 minutes ahead) as Bearer. Debits `units` from the ' +
    "product's pool, all or nothing, in a batch with the other debits that arrive meanwhile, and answers once the batch " +
    'has committed (a 200 is durable). A granted answer is kept under `requestId` for at least 24 hours: a replay with the ' +
    'same body gets it and debits nothing; a replay with a different body is 409. A refusal (401, 403) keeps nothing. JSON only.',
  security: [{ serviceJwt: [] }],
  document: UsageBody,
  plainDocument: plainUsageBody,
  responses: {
    200: { description: 'Debited; `credits` is what the pool holds afterwards', body: UsageGrant },
    401: 'Missing or bad service JWT ("Invalid service token."), or bad customer credential',
    403: 'Pool exhausted (fewer credits than units) or product not held',
    409: 'requestId already used with a different body',
    422: 'Bad productId, units or requestId',
    503: 'Database or token store unavailable; nothing was debited (retry with the same requestId)',
  },
});

/**
 * `POST /internal/v1/usage` (CONTRACT §7, §9): product services debit a pool for a customer's
 * call. Checks in order: service JWT (401), the customer's key or token (401, checked afresh
 * for every request), the body (422); then the debit waits for its batch and is answered once
 * the batch has committed (200, 403; 409 for a reused requestId). JSON only, code/messages
 * envelope, no WWW-Authenticate (CONTRACT §9), like the admin API.
 */
export function usageRoutes(
  deps: UserDeps,
  usage: UsageRecorder,
  serviceJwtSecret: string,
  catalogue: CatalogueReads,
  previousServiceJwtSecret?: string,
): Router {
  const router = Router();
  const requireServiceJwt = createServiceJwtCheck(serviceJwtSecret, Date.now, previousServiceJwtSecret);
  const product = catalogue.product;
  mountRoute(router, usageRoute, async (req, res, declared) => {
    const state = locals(res);
    const caller = requireServiceJwt(req);
    // The JSON body alone: this API never reads the query string.
    const { credential } = declared.params.rawBody();
    const principal = await deps.credentials.require({
      secret: typeof credential === 'string' ? credential : undefined,
      presented: credential !== undefined && credential !== null && credential !== '',
    });
    const { input, ruled } = await declared.inputWith((accepted) => usageProduct(product, accepted.productId));
    const { requestId, units } = input.document;
    // The schema accepted the product id, so the catalogue named its product.
    const request: UsageRequest = { product: ruled as Product, units: units ?? 1, requestId };
    const { answer, replayed } = await usage.record(principal, request);
    // winston formats a record before its transports drop it: build none that nobody writes.
    if (logLevelEnabled(res, 'info')) {
      state.log.info('usage', {
        caller: caller.iss,
        accountId: principal.accountId,
        productId: request.product.id,
        units: request.units,
        outcome: answer.outcome,
        replayed,
      });
    }
    if (answer.outcome === 'exhausted') throw new AppError('credits_exhausted', { reason: 'pool_exhausted' });
    respond(res, 200, { accountId: answer.accountId, productId: answer.productId, credits: answer.credits });
  });
  return router;
}
