import { Router } from 'express';
import { AppError } from '@platform/wire';
import { locals, logLevelEnabled, respond } from '@platform/kernel';
import type { UserDeps } from '../deps';
import type { CatalogueReads } from '../domain/catalogue';
import { parseUsageRequest, type UsageRecorder } from '../domain/usage';
import { adminRoute } from './route';
import { createServiceJwtCheck } from './service-jwt-check';

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * `POST /internal/v1/usage` (CONTRACT §7, §9): product services debit a pool for a customer's
 * call. Checks in order: service JWT (401), the customer's key or token (401, checked afresh
 * for every request), the body (422); then the debit waits for its batch and is answered once
 * the batch has committed (200, 403; 409 for a reused requestId). JSON only, code/messages
 * envelope, no WWW-Authenticate (CONTRACT §9), like the admin API.
 */
export function usageRoutes(deps: UserDeps, usage: UsageRecorder, serviceJwtSecret: string, catalogue: CatalogueReads): Router {
  const router = Router();
  const requireServiceJwt = createServiceJwtCheck(serviceJwtSecret);
  const product = catalogue.product;
  router.post(
    '/internal/v1/usage',
    adminRoute(async (req, res) => {
      const state = locals(res);
      const caller = requireServiceJwt(req);
      // The JSON body alone (Params would parse the query string too, which this API never reads).
      const body = isRecord(req.body) ? req.body : {};
      const principal = await deps.credentials.require(typeof body.credential === 'string' ? body.credential : undefined);
      const request = await parseUsageRequest(product, body);
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
      if (answer.outcome === 'exhausted') throw new AppError('credits_exhausted');
      respond(res, 200, { accountId: answer.accountId, productId: answer.productId, credits: answer.credits });
    }),
  );
  return router;
}
