import { Router } from 'express';
import { AppError } from '@platform/wire';
import { locals, outputFormatRefused, respond } from '@platform/kernel';
import type { UserDeps } from '../deps';
import { rotateApiKey } from '../domain/key-rotation';
import type { UserStore } from '../domain/user-store';
import { publicRoute } from './route';

/** `GET /user-service/api-key/generate` (CONTRACT §4.4). */
export function apiKeyRoutes(deps: UserDeps, store: UserStore): Router {
  const router = Router();
  router.get(
    '/user-service/api-key/generate',
    publicRoute(async (_req, res, params) => {
      // Key generation answers every bad parameter with its own 422 string (CONTRACT §2, §4.4).
      if (outputFormatRefused(res)) throw new AppError('invalid_request_params');
      const current = params.get('currentApiKey');
      const rotated = await rotateApiKey({ store }, current.kind === 'value' ? current.value : undefined);
      locals(res).log.info('api key rotated', { accountId: rotated.accountId });
      res.setHeader('Cache-Control', 'no-store');
      respond(res, 200, { apiKey: rotated.apiKey });
    }),
  );
  return router;
}
