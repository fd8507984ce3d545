import { Router, type Request, type Response } from 'express';
import { fingerprint, handler, locals, logLevelEnabled, Params, sendBody } from '@platform/common';
import type { AttemptLimits } from '../domain/attempt-limits';
import type { IssuedToken, TokenIssuer } from '../domain/issue-token';
import { readClientCredentialsRequest, readSeedTokenRequest } from '../domain/token-request';
import { AddressCheck, countingFailures, required } from './attempts';
import { clientAddress, clientCredential, readAuthorization, seedCredential } from './authorization';

export interface TokenRouteDeps {
  issuer: TokenIssuer;
  limits: AttemptLimits;
}

/** CONTRACT §4.1: a form body carrying `grant_type` selects the RFC 6749 flow. */
function isClientCredentialsFlow(req: Request): boolean {
  const body: unknown = req.body;
  // The content-type check last: it parses the header, the others are cheap.
  return (
    typeof body === 'object' && body !== null && Object.hasOwn(body, 'grant_type') && req.is('application/x-www-form-urlencoded') !== false
  );
}

export function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}

/** Debug level: the request line already records every issuance; this adds the token's fingerprint. */
function logIssued(res: Response, issued: IssuedToken, flow: string): void {
  if (!logLevelEnabled(res, 'debug')) return;
  locals(res).log.debug('token issued', {
    accountId: issued.accountId,
    fingerprint: fingerprint(issued.accessToken),
    expiresIn: issued.expiresIn,
    flow,
  });
}

/** `POST /oauth/token`: the seed's flow (code/messages, JSON or XML) and RFC 6749 client credentials (JSON). */
export function tokenRoutes(deps: TokenRouteDeps): Router {
  const router = Router();

  // With the issuance gate, the address is checked in the gate's round trip (or after a step fails).
  const lazy = deps.issuer.checksAddress;

  const seedFlow = async (req: Request, res: Response, address: string): Promise<void> => {
    const check = new AddressCheck(deps.limits, address, { lazy });
    const credential = seedCredential(readAuthorization(req));
    const authenticated = await check.guard(() => deps.issuer.authenticate(required(credential)));
    const request = await check.guard(() => readSeedTokenRequest(Params.from(req)));
    locals(res).outputFormat = request.outputFormat;
    const issued = await check.guard(() => deps.issuer.issue(authenticated, request.expiresIn, check));
    logIssued(res, issued, 'seed');
    sendBody(res, 200, { accessToken: issued.accessToken, expiresIn: issued.expiresIn }, request.outputFormat);
  };

  const clientCredentialsFlow = async (req: Request, res: Response, address: string): Promise<void> => {
    locals(res).envelope = 'oauth';
    const check = new AddressCheck(deps.limits, address, { lazy });
    const credential = clientCredential(req, readAuthorization(req));
    const authenticated = await check.guard(() => deps.issuer.authenticate(required(credential)));
    const request = await check.guard(() => readClientCredentialsRequest(Params.from(req)));
    const issued = await check.guard(() => deps.issuer.issue(authenticated, request.expiresIn, check));
    logIssued(res, issued, 'client_credentials');
    res.status(200).json({ access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn });
  };

  router.post(
    '/oauth/token',
    handler('codeMessages', async (req, res) => {
      noStore(res);
      const address = clientAddress(req);
      await countingFailures(deps.limits, address, () =>
        isClientCredentialsFlow(req) ? clientCredentialsFlow(req, res, address) : seedFlow(req, res, address),
      );
    }),
  );
  return router;
}
