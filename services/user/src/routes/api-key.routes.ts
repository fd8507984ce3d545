import { declareRoute, locals, mountRoute, publicEdge, respond, routeGroup } from '@platform/kernel';
import { z } from 'zod';
import { rotateApiKey } from '../domain/key-rotation';
import type { AccountTransactions } from '../domain/account-transaction';
import { ApiKey } from './schemas';

/** `GET /user-service/api-key/generate` (CONTRACT §4.4). */
export const apiKeyRoute = declareRoute({
  cors: true,
  accountData: true,
  methods: ['get'],
  paths: ['/user-service/api-key/generate'],
  edge: publicEdge,
  summary: 'Replace the API key',
  description: 'The old key stops working at once and every earlier access token is revoked. Only the API key itself may rotate.',
  params: { currentApiKey: z.string().openapi({ description: 'The key in force (not a token).' }) },
  // Key generation answers every bad parameter with its own 422 string (CONTRACT §2, §4.4).
  refusal: 'request',
  responses: {
    200: { description: 'New key', body: ApiKey },
    400: 'Unknown or inactive key',
    422: 'Missing or malformed currentApiKey, or bad outputFormat',
    503: 'Token store or database unavailable; nothing was rotated',
  },
});

export const apiKeyRoutes = routeGroup<{ store: { accounts: AccountTransactions } }>({
  routes: [apiKeyRoute],
  mount: (router, uses) =>
    mountRoute(router, apiKeyRoute, async (_req, res, request) => {
      const { currentApiKey } = request.input();
      const rotated = await rotateApiKey(uses, currentApiKey);
      locals(res).log.info('api key rotated', { accountId: rotated.accountId });
      respond(res, 200, { apiKey: rotated.apiKey });
    }),
});
