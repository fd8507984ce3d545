import type { Request } from 'express';
import { AppError, Params, requiredMessage } from '@platform/wire';
import { locals, mountRoute, routeGroup } from '@platform/kernel';
import { isWellFormedToken } from '@platform/credentials';
import { authenticateAccount } from '../domain/account-auth';
import type { AttemptLimits } from '../domain/attempt-limits';
import {
  authenticateIntrospectionCaller,
  introspectToken,
  type IntrospectionCaller,
  type IntrospectionDeps,
  type PresentedCaller,
} from '../domain/introspect-token';
import { authenticateTokenHolder, revokeOwnToken } from '../domain/revoke-token';
import { countingFailures, required } from './attempts';
import { clientAddress, clientCredential, readAuthorization, seedCredential, type Authorization } from './authorization';
import { introspectRoute, revokeRoute } from './declarations';
import { noCache } from './no-cache';

export interface IntrospectRevokeRouteUses extends IntrospectionDeps {
  limits: AttemptLimits;
}

/**
 * The `token` parameter of RFC 7662 / RFC 7009, from the body only (400 invalid_request when
 * missing): a token in the query string would be written to every proxy's access log.
 */
function tokenParameter(req: Request): string {
  const value = new Params({}, req.body).get('token');
  if (value.kind === 'value') return value.value;
  throw new AppError('invalid_params', { fields: { token: [requiredMessage('token')] } });
}

function presentedCaller(req: Request): PresentedCaller {
  const authorization = readAuthorization(req);
  if (authorization.scheme === 'bearer') return { kind: 'bearer', value: authorization.value, address: clientAddress(req) };
  const credential = clientCredential(req, authorization);
  return credential ? { kind: 'account', credential } : { kind: 'none' };
}

function callerLabel(caller: IntrospectionCaller): Record<string, unknown> {
  switch (caller.kind) {
    case 'service':
      return { caller: 'service', issuer: caller.name };
    case 'admin':
      return { caller: 'admin', actor: caller.name };
    case 'account':
      return { caller: 'account', accountId: caller.accountId };
  }
}

/** Who revokes: the account of a live token presented as Bearer, or the account's key (Basic, body, or the seed's Bearer). */
async function revocationCaller(req: Request, authorization: Authorization, deps: IntrospectRevokeRouteUses): Promise<number> {
  if (authorization.scheme === 'bearer' && isWellFormedToken(authorization.value)) {
    return authenticateTokenHolder(deps.access, authorization.value);
  }
  const credential = seedCredential(authorization) ?? clientCredential(req, authorization);
  const { key } = await authenticateAccount(deps.findKey, required(credential, authorization), {
    requireCredits: false,
    explainKey: deps.explainKey,
  });
  return key.accountId;
}

/** RFC 7662 introspection and RFC 7009 revocation (JSON, RFC 6749 §5.2 errors). */
export const introspectRevokeRoutes = routeGroup<IntrospectRevokeRouteUses>({
  routes: [introspectRoute, revokeRoute],
  mount(router, deps) {
    mountRoute(router, introspectRoute, async (req, res) => {
      noCache(res);
      await countingFailures(deps.limits, req, async () => {
        const caller = await authenticateIntrospectionCaller(presentedCaller(req), deps);
        const answer = await introspectToken(tokenParameter(req), caller, deps);
        locals(res).log.info('token introspected', { ...callerLabel(caller), active: answer.active });
        res.status(200).json(answer);
      });
    });

    mountRoute(router, revokeRoute, async (req, res) => {
      noCache(res);
      await countingFailures(deps.limits, req, async () => {
        const accountId = await revocationCaller(req, readAuthorization(req), deps);
        const revoked = await revokeOwnToken(deps.access, tokenParameter(req), accountId);
        locals(res).log.info('token revocation', { accountId, revoked });
        res.status(200).end();
      });
    });
  },
});
