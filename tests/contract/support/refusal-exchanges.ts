/**
 * The refused requests of the refusal-reasons suite (CONTRACT §2): where each goes, what it
 * presents, and how the contract shapes its answer.
 */
import { uniqueId, type TestAccount } from '@platform/testing';
import { GRANT, basic, bearer, seedBearer, serviceJwt, type HttpRequest } from './index';
import { PRODUCT_PATH } from './product';

export type Target = 'auth' | 'user' | 'categorization' | 'product' | 'strictAuth' | 'meteredAuth';
type Envelope = 'codeMessages' | 'oauth' | 'errorMessage';

/** One refused request: where it goes, what it presents, and how the answer is shaped. */
export interface Exchange {
  target: Target;
  path: string;
  request: HttpRequest;
  envelope: Envelope;
  /** The realm of the Bearer challenge a 401 carries (public endpoints, a Bearer credential sent). */
  realm?: string;
  /** Whether the endpoint answers XML (CONTRACT §2: `outputFormat`). */
  xml: boolean;
  /** The secret presented: it must never reach the log line. */
  secret?: string;
  /** The body's `messages` where the service words its own refusal (the usage API's refused service JWT). */
  messages?: string;
  /** Send it again until the limit answers 429 (the limit's window is part of the case). */
  untilLimited?: boolean;
}

export const balance = (request: HttpRequest, secret?: string): Exchange => ({
  target: 'user',
  path: '/user-service/account-balance',
  request,
  envelope: 'codeMessages',
  xml: true,
  ...(secret === undefined ? {} : { secret }),
  ...(request.headers?.Authorization?.startsWith('Bearer ') === true ? { realm: 'user' } : {}),
});
export const seedToken = (apiKey: string | undefined, target: Target = 'auth'): Exchange => ({
  target,
  path: '/oauth/token',
  request: { json: GRANT, ...(apiKey === undefined ? {} : { headers: seedBearer(apiKey) }) },
  envelope: 'codeMessages',
  xml: true,
  ...(apiKey === undefined ? {} : { secret: apiKey, realm: 'auth' }),
});
export const clientCredentials = (account: TestAccount, apiKey: string): Exchange => ({
  target: 'auth',
  path: '/oauth/token',
  request: { headers: basic(String(account.id), apiKey), form: { grant_type: 'client_credentials' } },
  envelope: 'oauth',
  xml: false,
  secret: apiKey,
});
export const categories = (secret: string): Exchange => ({
  target: 'categorization',
  path: '/api/v2/categories',
  request: { headers: bearer(secret) },
  envelope: 'codeMessages',
  xml: true,
  secret,
  realm: 'categorization',
});
export const lookup = (apiKey: string | undefined): Exchange => ({
  target: 'product',
  path: PRODUCT_PATH,
  request: { query: { domainName: 'example.com', ...(apiKey === undefined ? {} : { apiKey }) } },
  envelope: 'errorMessage',
  xml: true,
  ...(apiKey === undefined ? {} : { secret: apiKey }),
});
export const usage = (credential: string, units = 1): Exchange => ({
  target: 'user',
  path: '/internal/v1/usage',
  request: { json: { credential, productId: 1, units, requestId: uniqueId('refusal') }, headers: bearer(serviceJwt()) },
  envelope: 'codeMessages',
  xml: false,
  secret: credential,
});
/** The usage API refusing the product's own service JWT (`null`: none sent), in its own words. */
export const usageWithJwt = (credential: string, jwt: string | null): Exchange => ({
  ...usage(credential),
  request: {
    json: { credential, productId: 1, units: 1, requestId: uniqueId('refusal') },
    ...(jwt === null ? {} : { headers: bearer(jwt) }),
  },
  messages: 'Invalid service token.',
});
export const adminCall = (target: 'user' | 'categorization', path: string, token: string | undefined, json?: unknown): Exchange => ({
  target,
  path,
  request: { ...(token === undefined ? {} : { headers: bearer(token) }), ...(json === undefined ? {} : { json }) },
  envelope: 'codeMessages',
  xml: false,
  ...(token === undefined ? {} : { secret: token }),
});
