import { Router, type Request } from 'express';
import { AppError, locals, Params, sendBody } from '@platform/common';
import { verifyServiceJwt, type ServiceJwtClaims } from '@platform/credentials';
import type { UserDeps } from '../deps';
import { parseUsageRequest, recordUsage } from '../domain/usage';
import type { UsageStore } from '../store/usage-store';
import { adminRoute } from './route';

/** `messages` of the 401 for a missing or bad service JWT; a bad customer credential keeps the contract's 401 sentence. */
export const INVALID_SERVICE_TOKEN = 'Invalid service token.';

function requireServiceJwt(req: Request, secret: string): ServiceJwtClaims {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  try {
    return verifyServiceJwt(match?.[1] ?? '', { audience: 'user', secret });
  } catch (error) {
    throw new AppError('unauthenticated', { message: INVALID_SERVICE_TOKEN, cause: error });
  }
}

/**
 * `POST /internal/v1/usage` (CONTRACT §7): product services debit a pool for a customer's call.
 * Checks in order: service JWT (401), the customer's key or token (401), the body (422); then
 * one transaction debits and records the answer under `requestId` (200, 403; 409 for a reused
 * requestId). JSON only, code/messages envelope, no WWW-Authenticate (CONTRACT §9), like the admin API.
 */
export function usageRoutes(deps: UserDeps, store: UsageStore, serviceJwtSecret: string): Router {
  const router = Router();
  router.post(
    '/internal/v1/usage',
    adminRoute(async (req, res) => {
      const state = locals(res);
      state.outputFormat = 'JSON';
      const caller = requireServiceJwt(req, serviceJwtSecret);
      const body = Params.from(req).rawBody();
      const principal = await deps.credentials.require(typeof body.credential === 'string' ? body.credential : undefined);
      const request = await parseUsageRequest(store, body);
      const { answer, replayed } = await recordUsage(store, principal, request);
      state.log.info('usage', {
        caller: caller.iss,
        accountId: principal.accountId,
        productId: request.product.id,
        units: request.units,
        outcome: answer.outcome,
        replayed,
      });
      if (answer.outcome === 'exhausted') throw new AppError('credits_exhausted');
      sendBody(res, 200, { accountId: answer.accountId, productId: answer.productId, credits: answer.credits }, 'JSON');
    }),
  );
  return router;
}
