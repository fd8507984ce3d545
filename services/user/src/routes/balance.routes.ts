import { declareRoute, mountRoute, publicEdge, respond, routeGroup } from '@platform/kernel';
import {
  hashSecret,
  isApiKeyShape,
  presentedCredential,
  refusedKey,
  type CredentialVerifier,
  type ExplainKeyRefusal,
} from '@platform/credentials';
import { balanceOfPools, type BalanceReads } from '../domain/balance';
import type { CatalogueReads } from '../domain/catalogue';
import { balanceItemView } from './balance-view';
import { apiKeyParam, Balance, customerSecurity, productIdParam } from './schemas';

/** `GET|POST /user-service/account-balance` and the legacy `/service/account-balance` (CONTRACT §4.3). */
export const balanceRoute = declareRoute({
  cors: true,
  accountData: true,
  methods: ['get', 'post'],
  paths: ['/user-service/account-balance'],
  deprecatedPaths: ['/service/account-balance'],
  edge: publicEdge,
  summary: 'Account balance',
  description: 'One item per held product, ordered by product id; products sharing a pool show the same credits.',
  security: customerSecurity,
  params: { apiKey: apiKeyParam, productId: productIdParam },
  responses: {
    200: { description: 'Balance', body: Balance },
    401: 'Missing or bad credential',
    422: 'Bad productId or outputFormat',
  },
});

export interface BalanceRouteUses {
  balances: BalanceReads;
  catalogue: CatalogueReads;
  /** Keys, tokens and page sessions (CONTRACT §4.7). */
  accountCredentials: CredentialVerifier;
  explainKey: ExplainKeyRefusal;
}

export const balanceRoutes = routeGroup<BalanceRouteUses>({
  routes: [balanceRoute],
  mount: (router, uses) =>
    mountRoute(router, balanceRoute, async (req, res, request) => {
      const presented = presentedCredential(req, request.params);
      const { secret } = presented;
      // Credential first (401), then the parameters (422). An API key is checked by the same
      // query that reads the account's pools (one round trip); a token by the token store, then
      // the pools are read. Both reads are batched with those of concurrent requests.
      const keyHash = secret !== undefined && isApiKeyShape(secret) ? hashSecret(secret) : undefined;
      const caller = keyHash !== undefined ? await uses.balances.poolsByKey(keyHash) : await uses.accountCredentials.require(presented);
      if (!caller) throw refusedKey(keyHash as string, uses.explainKey);
      const { productId } = request.input();
      const pools = 'pools' in caller ? caller.pools : await uses.balances.poolsOf(caller.accountId);
      const balances = await balanceOfPools(uses, pools, productId);
      respond(res, 200, { data: balances.map(balanceItemView) });
    }),
});
