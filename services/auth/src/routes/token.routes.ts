import { type IRouter, type Request, type Response } from 'express';
import { fingerprint, handler, locals, logLevelEnabled, Params, sendBody } from '@platform/common';
import type { AttemptLimits } from '../domain/attempt-limits';
import type { IssuedToken, TokenIssuer } from '../domain/issue-token';
import { readClientCredentialsRequest, readSeedTokenRequest } from '../domain/token-request';
import { countingFailures, parametersAfterCredential, required } from './attempts';
import { clientAddress, clientCredential, readAuthorization, seedCredential } from './authorization';

export interface TokenRouteDeps {
  issuer: TokenIssuer;
  limits: AttemptLimits;
}

const FORM = /^application\/x-www-form-urlencoded[\t ]*(?:;|$)/i;

/** CONTRACT §4.1: a form body carrying `grant_type` selects the RFC 6749 flow. */
function isClientCredentialsFlow(req: Request): boolean {
  const body: unknown = req.body;
  return typeof body === 'object' && body !== null && Object.hasOwn(body, 'grant_type') && FORM.test(req.headers['content-type'] ?? '');
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
export function tokenRoutes(router: IRouter, deps: TokenRouteDeps): void {
  const { issuer } = deps;

  const seedFlow = async (req: Request, res: Response): Promise<void> => {
    const credential = required(seedCredential(readAuthorization(req)));
    const request = await parametersAfterCredential(
      () => readSeedTokenRequest(Params.from(req)),
      () => issuer.authenticate(credential),
    );
    locals(res).outputFormat = request.outputFormat;
    const issued = await issuer.issue(credential, request.expiresIn);
    logIssued(res, issued, 'seed');
    sendBody(res, 200, { accessToken: issued.accessToken, expiresIn: issued.expiresIn }, request.outputFormat);
  };

  const clientCredentialsFlow = async (req: Request, res: Response): Promise<void> => {
    locals(res).envelope = 'oauth';
    const credential = required(clientCredential(req, readAuthorization(req)));
    const request = await parametersAfterCredential(
      () => readClientCredentialsRequest(Params.from(req)),
      () => issuer.authenticate(credential),
    );
    const issued = await issuer.issue(credential, request.expiresIn);
    logIssued(res, issued, 'client_credentials');
    sendBody(res, 200, { access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn }, 'JSON');
  };

  router.post(
    '/oauth/token',
    handler('codeMessages', async (req, res) => {
      noStore(res);
      await countingFailures(
        deps.limits,
        () => clientAddress(req),
        () => (isClientCredentialsFlow(req) ? clientCredentialsFlow(req, res) : seedFlow(req, res)),
      );
    }),
  );
}
