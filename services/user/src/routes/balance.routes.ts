import { Router } from 'express';
import { Params, sendBody, throwIfInvalid, type FieldMessages } from '@platform/common';
import { presentedCredential } from '@platform/credentials';
import type { UserDeps } from '../deps';
import { accountBalance, parseProductFilter } from '../domain/balance';
import type { UserStore } from '../store/user-store';
import { balanceItemView } from './balance-view';
import { collectOutputFormat } from './output-format';
import { publicRoute } from './route';

/** `GET|POST /user-service/account-balance` and the legacy `/service/account-balance` (CONTRACT §4.3). */
export function balanceRoutes(deps: UserDeps, store: UserStore): Router {
  const router = Router();
  const balance = publicRoute(async (req, res) => {
    const params = Params.from(req);
    const principal = await deps.credentials.require(presentedCredential(req, params).secret);
    const errors: FieldMessages = {};
    const format = collectOutputFormat(params, res, errors);
    const productId = parseProductFilter(params.get('productId'), errors);
    throwIfInvalid(errors);
    const balances = await accountBalance(store, principal.accountId, productId);
    sendBody(res, 200, { data: balances.map(balanceItemView) }, format);
  });
  for (const path of ['/user-service/account-balance', '/service/account-balance']) {
    router.get(path, balance);
    router.post(path, balance);
  }
  return router;
}
