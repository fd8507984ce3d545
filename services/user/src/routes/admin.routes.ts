import { Router } from 'express';
import { adminEdge, declareRoute, locals, mountRoute, respond } from '@platform/kernel';
import type { FailureLimit } from '@platform/credentials';
import { adminActor, requireAdminToken, type NamedAdminToken } from '@platform/kernel';
import { z } from 'zod';
import { accountDetails, addCredits, createAccount, parseAccountId, parseNewAccount } from '../domain/accounts';
import { parseReason } from '../domain/operator';
import type { UserStore } from '../domain/user-store';
import { mountOperatorRoutes, type OperatorDeps } from './operator.routes';
import { balanceItemView } from './balance-view';
import { adminSecurity } from './schemas';

const BASE = '/admin/v1';
const ADMIN_401 = 'Missing or wrong admin token';
// Path ids that are not account ids name no account (404): the domain reads them.
const accountIdPath = { id: z.number().int() };

/** `POST /admin/v1/accounts`: the body is the domain's (`parseNewAccount`: every problem reported together). */
export const createAccountRoute = declareRoute({
  methods: ['post'],
  paths: [`${BASE}/accounts`],
  edge: adminEdge,
  summary: 'Create an account (admin)',
  security: adminSecurity,
  body: {
    content: {
      'application/json': z.object({ email: z.string(), credits: z.record(z.number().int().min(0)).optional() }),
    },
  },
  responses: {
    201: { description: 'Created; the API key is shown only here' },
    401: ADMIN_401,
    409: 'E-mail taken',
    422: 'Bad input',
  },
});

export const showAccountRoute = declareRoute({
  methods: ['get'],
  paths: [`${BASE}/accounts/{id}`],
  edge: adminEdge,
  summary: 'Show an account (admin)',
  security: adminSecurity,
  pathParams: accountIdPath,
  responses: { 200: { description: 'Account and balances' }, 401: ADMIN_401, 404: 'Unknown account' },
});

export const changeCreditsRoute = declareRoute({
  methods: ['post'],
  paths: [`${BASE}/accounts/{id}/credits`],
  edge: adminEdge,
  summary: 'Top up (positive amount) or adjust (negative, clamped at 0) a pool (admin)',
  security: adminSecurity,
  pathParams: accountIdPath,
  body: {
    content: {
      'application/json': z.object({ productId: z.number().int(), amount: z.number().int(), reason: z.string().max(500).optional() }),
    },
  },
  responses: {
    200: { description: '`{"productId", "credits"}`' },
    401: ADMIN_401,
    404: 'Unknown account',
    422: 'Bad input',
  },
});

/** The operator's admin API (CONTRACT §7): accounts, top-ups and adjustments, search, disabling, rotation, ledger and audit. */
export function adminRoutes(
  deps: OperatorDeps & { store: UserStore },
  adminTokens: readonly NamedAdminToken[],
  failures: FailureLimit,
): Router {
  const { store } = deps;
  const router = Router();
  router.use(BASE, requireAdminToken(adminTokens, { failures }));

  mountRoute(router, createAccountRoute, async (_req, res, request) => {
    const actor = adminActor(res);
    const { account, apiKey } = await createAccount(store, parseNewAccount(request.params.rawBody()), actor);
    locals(res).log.info('account created', { accountId: account.id, actor });
    res.setHeader('Cache-Control', 'no-store');
    respond(res, 201, { id: account.id, email: account.email, apiKey, createdAt: account.createdAt.toISOString() });
  });

  mountRoute(router, showAccountRoute, async (req, res) => {
    const { account, balances } = await accountDetails(store, parseAccountId(String(req.params.id)));
    respond(res, 200, {
      id: account.id,
      email: account.email,
      createdAt: account.createdAt.toISOString(),
      disabled: account.disabled,
      balances: balances.map(balanceItemView),
    });
  });

  mountRoute(router, changeCreditsRoute, async (req, res, request) => {
    const accountId = parseAccountId(String(req.params.id));
    const body = request.params.rawBody();
    const actor = adminActor(res);
    const reason = parseReason(body);
    const result = await addCredits(store, accountId, body, reason === undefined ? { actor } : { actor, reason });
    locals(res).log.info('credits changed', { accountId, productId: result.productId, amount: result.amount, actor });
    respond(res, 200, { productId: result.productId, credits: result.credits });
  });
  mountOperatorRoutes(router, deps);
  return router;
}
