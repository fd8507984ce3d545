import { adminEdge, declareRoute, locals, logLevelEnabled, mountRoute, respond, routeGroup } from '@platform/kernel';
import { z } from 'zod';
import { REFUSAL_REASONS } from '@platform/wire';
import type { UsageRecorder } from '../domain/usage';
import type { ProductCallUses } from './service-jwt-check';
import { meterItems } from './usage-batch-items';

/** Items one batch may carry (CONTRACT §7.1). */
export const MAX_BATCH_ITEMS = 1_000;

/** Items are validated one by one (an item's problem is its own 422), so the document only counts them. */
const UsageBatchBody = z
  .object({
    items: z
      .array(
        z.unknown().openapi({
          type: 'object',
          description: 'A body of `POST /internal/v1/usage`: `credential`, `productId`, `units` (default 1), `requestId`.',
        }),
      )
      .min(1)
      .max(MAX_BATCH_ITEMS),
  })
  .openapi({ example: { items: [{ credential: `at_${'x'.repeat(29)}`, requestId: 'search-7f3c2a', productId: 1, units: 1 }] } });

const BatchItemAnswer = z
  .union([
    z.object({ status: z.literal(200), accountId: z.number().int(), productId: z.number().int(), credits: z.number().int().min(0) }),
    z.object({
      status: z.number().int().openapi({ description: '401, 403, 409 or 422, as the single route would answer' }),
      messages: z.union([z.string(), z.record(z.array(z.string()))]),
      reason: z
        .enum(REFUSAL_REASONS)
        .optional()
        .openapi({ description: "A 401's or 403's refusal reason: what the single route sends as X-Refusal-Reason" }),
    }),
  ])
  .openapi('UsageBatchItemAnswer');

export const usageBatchRoute = declareRoute({
  methods: ['post'],
  paths: ['/internal/v1/usage/batch'],
  // CONTRACT §7.1; every other body keeps the common 16 KiB.
  bodyLimit: '1mb',
  edge: adminEdge,
  summary: 'Debit many product calls at once (internal, product services)',
  description:
    'Service JWT as for `POST /internal/v1/usage`; body up to 1 MiB, 1–1,000 items. Each item is exactly one ' +
    '`POST /internal/v1/usage` (all or nothing, idempotent by `requestId` across both routes, never overspending, the same ' +
    'events and alerts); items on one pool apply in order. One result per item, in order: `status` 200 with the single ' +
    "route's body, or the single route's refusal as `status` and `messages` (401, 403, 422; 409 for a requestId already " +
    'used with a different body). A whole-request problem (JWT, body) answers as the single route does; 503 when the ' +
    'database is unavailable (retry with the same requestIds: what committed is replayed). JSON only.',
  security: [{ serviceJwt: [] }],
  document: UsageBatchBody,
  responses: {
    200: { description: 'One result per item, in order', body: z.object({ items: z.array(BatchItemAnswer) }) },
    401: 'Missing or bad service JWT ("Invalid service token.")',
    413: 'Body over 1 MiB',
    422: 'No `items`, or not 1–1,000 of them',
    503: 'Database or token store unavailable (retry with the same requestIds)',
  },
});

/**
 * `POST /internal/v1/usage/batch` (CONTRACT §7.1): the service JWT and the body are the whole
 * request's (401, 413, 400, 422); every item then goes through the single route's checks and
 * recorder (usage-batch-items.ts).
 */
export const usageBatchRoutes = routeGroup<ProductCallUses & { recorder: UsageRecorder }>({
  internal: true,
  routes: [usageBatchRoute],
  mount: (router, { requireServiceJwt, credentials, catalogue, recorder }) =>
    mountRoute(router, usageBatchRoute, async (req, res, declared) => {
      const caller = await requireServiceJwt(req);
      const { items } = declared.input().document;
      const results = await meterItems(items, { credentials, product: catalogue.product, recorder });
      if (logLevelEnabled(res, 'info')) {
        const counts: Record<number, number> = {};
        for (const { status } of results) counts[status] = (counts[status] ?? 0) + 1;
        locals(res).log.info('usage batch', { caller: caller.iss, items: results.length, statuses: counts });
      }
      respond(res, 200, { items: results });
    }),
});
