/**
 * The hot-path scenarios of `pnpm bench` (issue "hot paths"): issuance in both flows, balance
 * by token and by key, categories in every coding, and a token check right after a rotation;
 * each names the baseline it is measured against.
 */
import type autocannon from 'autocannon';

/** What a row is compared with, besides bare express (every row is). */
export type Baseline = 'bare' | 'floor' | 'plainBalance' | 'oidc' | 'body';

export interface Scenario {
  name: string;
  baseline: Baseline;
  options: autocannon.Options;
  /** The status every answer must have (a refusal scenario counts 401s, not 2xx). */
  status: number;
}

export interface BenchAccount {
  id: number;
  apiKey: string;
}

export interface PlatformUrls {
  auth: string;
  user: string;
  categorization: string;
}

export const SEED_BODY = JSON.stringify({ grantType: 'access_token', expiresIn: 1800 });
export const CLIENT_CREDENTIALS_BODY = 'grant_type=client_credentials';

export const seedRequest = (apiKey: string): Pick<autocannon.Options, 'method' | 'headers' | 'body'> => ({
  method: 'POST',
  headers: { authorization: `Bearer ${Buffer.from(apiKey).toString('base64')}`, 'content-type': 'application/json' },
  body: SEED_BODY,
});

/** The same bytes for our token endpoint and node-oidc-provider's (both at /oauth/token). */
export const clientCredentialsRequest = (account: BenchAccount): Pick<autocannon.Options, 'method' | 'headers' | 'body'> => ({
  method: 'POST',
  headers: {
    authorization: `Basic ${Buffer.from(`${account.id}:${account.apiKey}`).toString('base64')}`,
    'content-type': 'application/x-www-form-urlencoded',
  },
  body: CLIENT_CREDENTIALS_BODY,
});

export async function createAccount(user: string, adminToken: string, credits: Record<string, number>): Promise<BenchAccount> {
  const created = await fetch(`${user}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`, credits }),
  });
  if (created.status !== 201) throw new Error(`account creation answered ${created.status}`);
  return (await created.json()) as BenchAccount;
}

export async function mintToken(auth: string, apiKey: string): Promise<string> {
  const issued = await fetch(`${auth}/oauth/token`, seedRequest(apiKey) as RequestInit);
  if (issued.status !== 200) throw new Error(`token endpoint answered ${issued.status}`);
  return ((await issued.json()) as { accessToken: string }).accessToken;
}

/** A token of an account whose key was rotated after it was minted: every check must refuse it. */
export async function revokedToken(urls: PlatformUrls, adminToken: string): Promise<string> {
  const account = await createAccount(urls.user, adminToken, { '1': 1_000_000 });
  const token = await mintToken(urls.auth, account.apiKey);
  const rotated = await fetch(`${urls.user}/user-service/api-key/generate?currentApiKey=${account.apiKey}`);
  if (rotated.status !== 200) throw new Error(`rotation answered ${rotated.status}`);
  return token;
}

export function issuanceScenarios(urls: PlatformUrls, account: BenchAccount, token: string, revoked: string): Scenario[] {
  const categories = `${urls.categorization}/api/v2/categories`;
  return [
    {
      name: 'seed flow POST /oauth/token',
      baseline: 'floor',
      status: 200,
      options: { url: `${urls.auth}/oauth/token`, ...seedRequest(account.apiKey) },
    },
    {
      name: 'client credentials POST /oauth/token',
      baseline: 'oidc',
      status: 200,
      options: { url: `${urls.auth}/oauth/token`, ...clientCredentialsRequest(account) },
    },
    {
      name: 'balance by token (Bearer)',
      baseline: 'plainBalance',
      status: 200,
      options: { url: `${urls.user}/user-service/account-balance`, headers: { authorization: `Bearer ${token}` } },
    },
    {
      name: 'balance by API key',
      baseline: 'plainBalance',
      status: 200,
      options: { url: `${urls.user}/user-service/account-balance?apiKey=${account.apiKey}` },
    },
    { name: 'categories, identity', baseline: 'body', status: 200, options: { url: categories } },
    { name: 'categories, gzip', baseline: 'body', status: 200, options: { url: categories, headers: { 'accept-encoding': 'gzip' } } },
    { name: 'categories, br', baseline: 'body', status: 200, options: { url: categories, headers: { 'accept-encoding': 'br' } } },
    {
      name: 'token check right after a rotation (401)',
      baseline: 'bare',
      status: 401,
      options: { url: `${urls.user}/user-service/account-balance`, headers: { authorization: `Bearer ${revoked}` } },
    },
  ];
}
