import type { Request } from 'express';
import { Params } from '@platform/wire';
import type { AccountCredential } from '../domain/account-auth';
import { apiKeyFromBearer } from '../domain/bearer-api-key';

/** The Authorization header as the auth endpoints read it. */
export type Authorization =
  | { scheme: 'none' }
  | { scheme: 'bearer'; value: string }
  | { scheme: 'basic'; user: string; password: string }
  /** Another scheme, or a Basic value that does not decode. */
  | { scheme: 'unreadable' };

const BEARER = /^Bearer +(\S+) *$/i;
const BASIC = /^Basic +([A-Za-z0-9+/_-]+={0,2}) *$/i;

/** RFC 6749 §2.3.1: client_id and client_secret are form-encoded inside Basic. */
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

export function readAuthorization(req: Request): Authorization {
  const header = req.get('authorization');
  if (header === undefined || header.trim() === '') return { scheme: 'none' };
  const bearer = BEARER.exec(header);
  if (bearer) return { scheme: 'bearer', value: bearer[1] as string };
  const basic = BASIC.exec(header);
  if (!basic) return { scheme: 'unreadable' };
  const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { scheme: 'unreadable' };
  const user = formDecode(decoded.slice(0, colon));
  const password = formDecode(decoded.slice(colon + 1));
  return user === undefined || password === undefined ? { scheme: 'unreadable' } : { scheme: 'basic', user, password };
}

/** The address the failure limit counts (X-Forwarded-For only with TRUST_PROXY, see app.ts). */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * RFC 6749 client authentication: HTTP Basic, else `client_id`/`client_secret` in the body
 * (never the query string). Undefined when the request carries neither.
 */
export function clientCredential(req: Request, authorization: Authorization): AccountCredential | undefined {
  if (authorization.scheme === 'basic') return { clientId: authorization.user, apiKey: authorization.password };
  if (authorization.scheme !== 'none') return undefined;
  const body = new Params({}, req.body);
  const secret = body.get('client_secret');
  if (secret.kind === 'absent') return undefined;
  const id = body.get('client_id');
  return { clientId: id.kind === 'value' ? id.value : '', apiKey: secret.kind === 'value' ? secret.value : undefined };
}

/** The seed's credential: the API key inside `Authorization: Bearer <base64(apiKey)>`. */
export function seedCredential(authorization: Authorization): AccountCredential | undefined {
  return authorization.scheme === 'bearer' ? { clientId: undefined, apiKey: apiKeyFromBearer(authorization.value) } : undefined;
}
