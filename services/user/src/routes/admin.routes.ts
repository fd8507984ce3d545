import { Router } from 'express';
import { locals, respond } from '@platform/kernel';
import { requireAdminToken, type FailureLimit } from '@platform/credentials';
import { accountDetails, addCredits, createAccount, parseAccountId, parseNewAccount } from '../domain/accounts';
import type { UserStore } from '../domain/user-store';
import { balanceItemView } from './balance-view';
import { adminRoute } from './route';

const BASE = '/admin/v1';

/** The operator's admin API (CONTRACT §7): accounts, top-ups and adjustments. */
export function adminRoutes(store: UserStore, adminToken: string, failures: FailureLimit): Router {
  const router = Router();
  router.use(BASE, requireAdminToken(adminToken, { failures }));

  router.post(
    `${BASE}/accounts`,
    adminRoute(async (_req, res, params) => {
      const { account, apiKey } = await createAccount(store, parseNewAccount(params.rawBody()));
      locals(res).log.info('account created', { accountId: account.id });
      res.setHeader('Cache-Control', 'no-store');
      respond(res, 201, { id: account.id, email: account.email, apiKey, createdAt: account.createdAt.toISOString() });
    }),
  );

  router.get(
    `${BASE}/accounts/:id`,
    adminRoute(async (req, res) => {
      const { account, balances } = await accountDetails(store, parseAccountId(String(req.params.id)));
      respond(res, 200, {
        id: account.id,
        email: account.email,
        createdAt: account.createdAt.toISOString(),
        balances: balances.map(balanceItemView),
      });
    }),
  );

  router.post(
    `${BASE}/accounts/:id/credits`,
    adminRoute(async (req, res, params) => {
      const accountId = parseAccountId(String(req.params.id));
      const result = await addCredits(store, accountId, params.rawBody());
      locals(res).log.info('credits changed', { accountId, productId: result.productId, amount: result.amount });
      respond(res, 200, { productId: result.productId, credits: result.credits });
    }),
  );
  return router;
}
