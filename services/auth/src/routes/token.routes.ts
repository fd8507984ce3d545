import type { Request, RequestHandler, Response } from 'express';
import type { Params } from '@platform/wire';
import { fingerprint } from '@platform/runtime';
import { handler, locals, logLevelEnabled, routeGroup, type RouteFn } from '@platform/kernel';
import type { AccountCredential } from '../domain/account-auth';
import type { AttemptLimits } from '../domain/attempt-limits';
import type { IssuedToken, TokenIssuer } from '../domain/issue-token';
import { countFailure, required } from './attempts';
import { readAuthorization } from './authorization';
import { accessTokenGrant } from './grants/access-token';
import { clientCredentialsGrant, speaksRfc6749 } from './grants/client-credentials';
import type { TokenGrant } from './grants/token-grant';
import { tokenRoute } from './declarations';
import { noCache } from './no-cache';

export interface TokenRouteUses {
  issuer: TokenIssuer;
  limits: AttemptLimits;
}

/** Step: the grant's credential, or the 401 when the request presents none (nothing looked up yet). */
function clientAuth(grant: TokenGrant, req: Request): AccountCredential {
  const authorization = readAuthorization(req);
  return required(grant.credential(req, authorization), authorization);
}

/**
 * Step: the grant's parameters. When they are invalid, the credential is checked first, so
 * that a bad credential is a 401 before any 422 (CONTRACT §2), while a valid request costs no
 * separate credential lookup (the issuance checks it).
 */
async function grantParameters(
  grant: TokenGrant,
  params: Params,
  res: Response,
  issuer: TokenIssuer,
  credential: AccountCredential,
): Promise<number> {
  try {
    return grant.lifetime(params, res);
  } catch (invalid) {
    await issuer.authenticate(credential);
    throw invalid;
  }
}

/** Step: debug level only; the request line already records every issuance, this adds the token's fingerprint. */
function logIssued(res: Response, issued: IssuedToken, grant: TokenGrant): void {
  if (!logLevelEnabled(res, 'debug')) return;
  locals(res).log.debug('token issued', {
    accountId: issued.accountId,
    fingerprint: fingerprint(issued.accessToken),
    expiresIn: issued.expiresIn,
    flow: grant.name,
  });
}

/**
 * `POST /oauth/token` for one grant, as the steps it runs in the contract's order (CONTRACT §2,
 * §4.1, §9): no caching; the client's credential (401); the parameters (422, or RFC 6749's 400,
 * after the credential); the issuance (401 for a key that is unknown, inactive or without
 * credits; 429 over the account's issuances); the answer. Every 401 counts as a failed attempt
 * of the client address, and is a 429 once the address is over its limit.
 */
function tokenEndpoint(grant: TokenGrant, deps: TokenRouteUses): RouteFn {
  const { issuer, limits } = deps;
  return async (req, res, params) => {
    noCache(res);
    try {
      const credential = clientAuth(grant, req);
      const lifetime = await grantParameters(grant, params, res, issuer, credential);
      const issued = await issuer.issue(credential, lifetime);
      logIssued(res, issued, grant);
      grant.answer(res, issued);
    } catch (error) {
      await countFailure(limits, req, error);
      throw error;
    }
  };
}

/** The token endpoint's grants, one module each (CONTRACT §4.1). */
const GRANTS = { access_token: accessTokenGrant, client_credentials: clientCredentialsGrant } as const satisfies Record<string, TokenGrant>;

/**
 * The grant a request asks for: a form body carrying `grant_type` speaks RFC 6749 (whose module
 * refuses a `grant_type` other than its own, after the client's credential); anything else is the seed's.
 */
function grantOf(req: Request): keyof typeof GRANTS {
  return speaksRfc6749(req) ? 'client_credentials' : 'access_token';
}

/** `POST /oauth/token` (`tokenRoute`): the request's grant, from the table, answers it under its own edge. */
export const tokenRoutes = routeGroup<TokenRouteUses>({
  routes: [tokenRoute],
  mount(router, deps) {
    const endpoints = Object.fromEntries(
      Object.entries(GRANTS).map(([name, grant]: [string, TokenGrant]) => [name, handler(grant.edge, tokenEndpoint(grant, deps))]),
    ) as Record<keyof typeof GRANTS, RequestHandler>;
    for (const path of tokenRoute.paths) router.post(path, (req, res, next) => endpoints[grantOf(req)](req, res, next));
  },
});
