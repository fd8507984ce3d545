import { Router } from 'express';
import { AppError, throwIfInvalid, type FieldMessages } from '@platform/wire';
import { checkOutputFormat, respond } from '@platform/kernel';
import { hashSecret, isApiKeyShape, presentedCredential } from '@platform/credentials';
import type { UserDeps } from '../deps';
import { balanceOfPools, parseProductFilter, type BalanceReads } from '../domain/balance';
import type { CatalogueReads } from '../domain/catalogue';
import { balanceItemView } from './balance-view';
import { publicRoute } from './route';

/** `GET|POST /user-service/account-balance` and the legacy `/service/account-balance` (CONTRACT §4.3). */
export function balanceRoutes(deps: UserDeps, reads: { balances: BalanceReads; catalogue: CatalogueReads }): Router {
  const router = Router();
  const balance = publicRoute(async (req, res, params) => {
    const { secret } = presentedCredential(req, params);
    // Credential first (401), then the parameters (422). An API key is checked by the same
    // query that reads the account's pools (one round trip); a token by the token store, then
    // the pools are read. Both reads are batched with those of concurrent requests.
    const caller =
      secret !== undefined && isApiKeyShape(secret)
        ? await reads.balances.poolsByKey(hashSecret(secret))
        : await deps.credentials.require(secret);
    if (!caller) throw new AppError('unauthenticated');
    const errors: FieldMessages = {};
    checkOutputFormat(res, errors);
    const productId = parseProductFilter(params.get('productId'), errors);
    throwIfInvalid(errors);
    const pools = 'pools' in caller ? caller.pools : await reads.balances.poolsOf(caller.accountId);
    const balances = await balanceOfPools(reads, pools, productId);
    respond(res, 200, { data: balances.map(balanceItemView) });
  });
  for (const path of ['/user-service/account-balance', '/service/account-balance']) {
    router.get(path, balance);
    router.post(path, balance);
  }
  return router;
}
