import { AccountAccessClient, ApiError } from '../src/index.js';
import { startAnsweringProxy, type AnsweringProxy } from './answering-proxy.js';
import { startTestPlatform, type TestPlatform } from './platform.js';

const TOO_MANY = { code: 429, messages: 'Too Many Requests. Try your call again later.' };
const UNAVAILABLE = { code: 503, messages: 'Service temporarily unavailable. Try your call again later.' };

describe('AccountAccessClient retries 429 and 503 from the running platform', () => {
  let platform: TestPlatform;
  let auth: AnsweringProxy;
  let user: AnsweringProxy;

  beforeAll(async () => {
    platform = await startTestPlatform();
    auth = await startAnsweringProxy(platform.urls.auth);
    user = await startAnsweringProxy(platform.urls.user);
  }, 60_000);

  afterAll(async () => {
    await auth.close();
    await user.close();
    await platform.stop();
  });

  async function aClient(): Promise<AccountAccessClient> {
    const account = await platform.anAccount({ '1': 12 });
    return new AccountAccessClient({
      apiKey: account.apiKey,
      authUrl: auth.url,
      userUrl: user.url,
      categorizationUrl: platform.urls.categorization,
    });
  }

  const attempts = (proxy: AnsweringProxy, path: string) => proxy.seen.filter((request) => request.path.startsWith(path));

  it('when the balance is answered 429 with Retry-After: 1, then the client waits a second and gets the balance', async () => {
    const client = await aClient();
    await client.accessToken();
    user.answerNext('/user-service/account-balance', { status: 429, headers: { 'Retry-After': '1' }, body: TOO_MANY });
    const before = user.seen.length;

    const balance = await client.balance({ productId: 1 });

    expect(balance).toEqual([{ productId: 1, productName: 'WHOIS API', credits: 12 }]);
    const [limited, served] = user.seen.slice(before);
    expect([limited?.status, served?.status]).toEqual([429, 200]);
    expect((served?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('when the token endpoint is answered 429 with Retry-After: 1, then the token is fetched after the wait', async () => {
    const client = await aClient();
    auth.answerNext('/oauth/token', { status: 429, headers: { 'Retry-After': '1' }, body: TOO_MANY });
    const before = attempts(auth, '/oauth/token').length;

    await expect(client.accessToken()).resolves.toEqual(expect.any(String));

    const [limited, served] = attempts(auth, '/oauth/token').slice(before);
    expect([limited?.status, served?.status]).toEqual([429, 200]);
    expect((served?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('when 503 without Retry-After comes twice, then the third attempt is served', async () => {
    const client = await aClient();
    await client.accessToken();
    user.answerNext('/user-service/notification-settings', { status: 503, body: UNAVAILABLE }, { status: 503, body: UNAVAILABLE });
    const before = attempts(user, '/user-service/notification-settings').length;

    await expect(client.notificationSettings()).resolves.toMatchObject({ zeroBalanceAlert: { enabled: true } });

    expect(
      attempts(user, '/user-service/notification-settings')
        .slice(before)
        .map((request) => request.status),
    ).toEqual([503, 503, 200]);
  });

  it('when every attempt is answered 429, then the client gives up after 3 retries with the 429 as ApiError', async () => {
    const client = await aClient();
    await client.accessToken();
    const limited = { status: 429, headers: { 'Retry-After': '0' }, body: TOO_MANY };
    user.answerNext('/user-service/account-balance', limited, limited, limited, limited);
    const before = attempts(user, '/user-service/account-balance').length;

    const failure = await client.balance().catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 429, code: 429, messages: TOO_MANY.messages });
    expect(attempts(user, '/user-service/account-balance').slice(before)).toHaveLength(4);
  });

  it('when Retry-After asks for more than a minute, then the client fails at once instead of blocking', async () => {
    const client = await aClient();
    await client.accessToken();
    user.answerNext('/user-service/account-balance', { status: 503, headers: { 'Retry-After': '3600' }, body: UNAVAILABLE });
    const before = attempts(user, '/user-service/account-balance').length;

    await expect(client.balance()).rejects.toMatchObject({ status: 503, messages: UNAVAILABLE.messages });
    expect(attempts(user, '/user-service/account-balance').slice(before)).toHaveLength(1);
  });

  it('when an answer uses the ErrorMessage envelope, then the ApiError carries its errorCode and msg', async () => {
    const client = await aClient();
    await client.accessToken();
    const msg = 'Access restricted. Check credits balance or enter the correct API key.';
    user.answerNext('/user-service/account-balance', { status: 403, body: { ErrorMessage: { errorCode: 'AUTHENTICATE_01', msg } } });

    await expect(client.balance()).rejects.toMatchObject({ status: 403, code: 'AUTHENTICATE_01', messages: msg });
  });

  it('when no server answers, then the ApiError has status 0 and code network_error', async () => {
    const closed = await startAnsweringProxy(platform.urls.auth);
    await closed.close();
    const client = new AccountAccessClient({ apiKey: 'at_x', authUrl: closed.url, userUrl: closed.url, categorizationUrl: closed.url });

    await expect(client.accessToken()).rejects.toMatchObject({ name: 'ApiError', status: 0, code: 'network_error' });
  });
});
