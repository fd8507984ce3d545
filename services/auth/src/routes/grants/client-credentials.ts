import type { Request } from 'express';
import { oauthEdge, respond } from '@platform/kernel';
import { readClientCredentialsRequest } from '../../domain/token-request';
import { clientCredential } from '../authorization';
import type { TokenGrant } from './token-grant';

const FORM = /^application\/x-www-form-urlencoded[\t ]*(?:;|$)/i;

/** CONTRACT §4.1: a form body carrying `grant_type` speaks RFC 6749; anything else is the seed's flow. */
export function speaksRfc6749(req: Request): boolean {
  const body: unknown = req.body;
  return typeof body === 'object' && body !== null && Object.hasOwn(body, 'grant_type') && FORM.test(req.headers['content-type'] ?? '');
}

/**
 * RFC 6749 §4.4 (CONTRACT §4.1): `grant_type=client_credentials` with an optional `expires_in`,
 * the client (account id and API key) by HTTP Basic or `client_id`/`client_secret` in the body,
 * RFC 6749 §5.2 errors in JSON.
 */
export const clientCredentialsGrant: TokenGrant = {
  name: 'client_credentials',
  edge: oauthEdge,
  credential: clientCredential,
  lifetime: (params) => readClientCredentialsRequest(params).expiresIn,
  answer(res, issued) {
    respond(res, 200, { access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn });
  },
};
