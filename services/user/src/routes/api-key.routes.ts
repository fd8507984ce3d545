import { Router } from 'express';
import { AppError, locals, Params, sendBody, type OutputFormat } from '@platform/common';
import type { UserDeps } from '../deps';
import { rotateApiKey } from '../domain/key-rotation';
import type { UserStore } from '../domain/user-store';
import { publicRoute } from './route';

// Key generation answers every bad parameter with its own 422 string (CONTRACT §2, §4.4).
function keyGenerationFormat(params: Params): OutputFormat {
  const value = params.get('outputFormat');
  if (value.kind === 'absent') return 'JSON';
  const upper = value.kind === 'value' ? value.value.toUpperCase() : '';
  if (upper === 'JSON' || upper === 'XML') return upper;
  throw new AppError('invalid_request_params');
}

/** `GET /user-service/api-key/generate` (CONTRACT §4.4). */
export function apiKeyRoutes(deps: UserDeps, store: UserStore): Router {
  const router = Router();
  router.get(
    '/user-service/api-key/generate',
    publicRoute(async (req, res) => {
      const params = Params.from(req);
      const format = keyGenerationFormat(params);
      locals(res).outputFormat = format;
      const current = params.get('currentApiKey');
      const rotated = await rotateApiKey({ store }, current.kind === 'value' ? current.value : undefined);
      locals(res).log.info('api key rotated', { accountId: rotated.accountId });
      res.setHeader('Cache-Control', 'no-store');
      sendBody(res, 200, { apiKey: rotated.apiKey }, format);
    }),
  );
  return router;
}
