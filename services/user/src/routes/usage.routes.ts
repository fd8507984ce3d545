import { AppError } from '@platform/wire';
import { adminEdge, declareRoute, locals, logLevelEnabled, mountRoute, respond, routeGroup } from '@platform/kernel';
import type { Product } from '../domain/catalogue';
import { usageProduct, type UsageRecorder, type UsageRequest } from '../domain/usage';
import { UsageGrant } from './schemas';
import { plainUsageBody, UsageBody } from './usage-body';
import type { ProductCallUses } from './service-jwt-check';

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
export const usageRoutes = routeGroup<ProductCallUses & { recorder: UsageRecorder }>({
  internal: true,
  routes: [usageRoute],
  mount(router, { requireServiceJwt, credentials, catalogue, recorder }) {
    const product = catalogue.product;
    mountRoute(router, usageRoute, async (req, res, declared) => {
      const state = locals(res);
      const caller = await requireServiceJwt(req);
      // The JSON body alone: this API never reads the query string.
      const { credential } = declared.params.rawBody();
      const principal = await credentials.require({
        secret: typeof credential === 'string' ? credential : undefined,
        presented: credential !== undefined && credential !== null && credential !== '',
      });
      const { input, ruled } = await declared.inputWith((accepted) => usageProduct(product, accepted.productId));
      const { requestId, units } = input.document;
      // The schema accepted the product id, so the catalogue named its product.
      const request: UsageRequest = { product: ruled as Product, units: units ?? 1, requestId };
      const { answer, replayed } = await recorder.record(principal, request);
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
  },
});
