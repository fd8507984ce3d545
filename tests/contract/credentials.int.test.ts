/**
 * CONTRACT §3: tokens are opaque and accepted wherever the key is; a token cannot mint tokens; a key
 * rotation refuses every earlier token on every service at once.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { type TestAccount } from '@platform/testing';
import {
  API_KEY_PATTERN,
  GRANT,
  basic,
  bearer,
  expectBody,
  expectOAuthError,
  seedBearer,
  unauthorized,
  usePlatform,
  type HttpRequest,
  type ServiceName,
} from './support';
import { PUBLIC_ENDPOINTS } from './support/declared-endpoints';

const { platform, send, freshKey, balanceOf, rotate, isActive } = usePlatform({ categorization: true });

describe('§3 credentials', () => {
  it('when a token is issued, then it is opaque, never shaped like an API key, at least 256 bits long, and new every time', async () => {
    const apiKey = await freshKey();
    const tokens = [await platform.token(apiKey), await platform.token(apiKey), await platform.token(apiKey)];
    for (const token of tokens) {
      expect(token).not.toMatch(API_KEY_PATTERN);
      expect(token.length).toBeGreaterThanOrEqual(43);
    }
    expect(new Set(tokens).size).toBe(3);
  });

  it.each<[string, ServiceName, string, (token: string) => HttpRequest]>([
    // Every GET endpoint that declares `apiKey`, read from the declarations: the token as apiKey and as Bearer.
    ...PUBLIC_ENDPOINTS.filter((endpoint) => endpoint.method === 'GET' && Object.hasOwn(endpoint.route.params ?? {}, 'apiKey')).flatMap(
      ({ name, service, path }): Array<[string, ServiceName, string, (token: string) => HttpRequest]> => [
        [`${name}, token as apiKey`, service, path, (token) => ({ query: { apiKey: token } })],
        [`${name}, token as Bearer`, service, path, (token) => ({ headers: bearer(token) })],
      ],
    ),
    [
      'legacy account-balance, token as apiKey in a form body',
      'user',
      '/service/account-balance',
      (token) => ({ form: { apiKey: token } }),
    ],
  ])('when %s, then the token is accepted where the key is: 200', async (_case, service, path, request) => {
    const token = await platform.token(await freshKey());
    expect((await send(service, path, request(token))).status).toBe(200);
  });

  it.each<[string, (token: string, account: TestAccount) => Record<string, string>]>([
    ['Bearer base64(token)', (token) => seedBearer(token)],
    ['Bearer token', (token) => bearer(token)],
  ])('when the token endpoint gets %s, then a token cannot mint tokens: 401', async (_case, headers) => {
    const account = await platform.account({ 1: 5 });
    const token = await platform.token(account.apiKey);
    expectBody(await send('auth', '/oauth/token', { headers: headers(token, account), json: GRANT }), 401, unauthorized);
  });

  it('when client credentials carry a token as the secret, then invalid_client 401', async () => {
    const account = await platform.account({ 1: 5 });
    const token = await platform.token(account.apiKey);
    expectOAuthError(
      await send('auth', '/oauth/token', { headers: basic(String(account.id), token), form: { grant_type: 'client_credentials' } }),
      401,
      'invalid_client',
    );
  });

  it('when the key is regenerated, then at once every earlier token is refused by every service, the old key is refused, and the new key works', async () => {
    const account = await platform.account({ 1: 50 });
    const before = [await platform.token(account.apiKey, 1800), await platform.token(account.apiKey, 10800)];
    const rotated = await rotate(account.apiKey);
    expect(rotated.status).toBe(200);
    const newKey = (rotated.json() as { apiKey: string }).apiKey;
    for (const token of before) {
      expectBody(await balanceOf(token), 401, unauthorized);
      expectBody(await send('user', '/user-service/notification-settings', { headers: bearer(token) }), 401, unauthorized);
      expectBody(await send('categorization', '/api/v2/categories', { query: { apiKey: token } }), 401, unauthorized);
      expect(await isActive(token)).toEqual({ active: false });
    }
    expectBody(await balanceOf(account.apiKey), 401, unauthorized);
    expectBody(await send('auth', '/oauth/token', { headers: seedBearer(account.apiKey), json: GRANT }), 401, unauthorized);
    expect((await balanceOf(newKey)).status).toBe(200);
    expect((await balanceOf(await platform.token(newKey))).status).toBe(200);
  });
});
