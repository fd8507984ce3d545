import { AccountAccessClient, ApiError, type AccountAccessClientOptions } from '../src/index.js';
import { recordingFetch, useTestPlatform } from './platform.js';

describe('AccountAccessClient against the running platform', () => {
  const platform = useTestPlatform();

  function aClient(apiKey: AccountAccessClientOptions['apiKey'], options: Partial<AccountAccessClientOptions> = {}) {
    const recorder = recordingFetch();
    const client = new AccountAccessClient({ apiKey, ...platform.clientUrls, fetch: recorder.fetch, ...options });
    return { client, recorder };
  }

  async function tokenRequestWith(apiKey: string): Promise<number> {
    const response = await fetch(`${platform.urls.auth}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${btoa(apiKey)}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ grantType: 'access_token' }),
    });
    await response.body?.cancel();
    return response.status;
  }

  it('when ten balance() calls run at once, then one token request serves them all', async () => {
    const account = await platform.anAccount({ '1': 250, '7': 40 });
    const { client, recorder } = aClient(account.apiKey);

    const balances = await Promise.all(Array.from({ length: 10 }, () => client.balance()));

    expect(recorder.tokenRequests()).toBe(1);
    for (const balance of balances) {
      expect(balance).toEqual([
        { productId: 1, productName: 'WHOIS API', credits: 250 },
        { productId: 7, productName: 'Email Verification API', credits: 40 },
        { productId: 24, productName: 'Bulk WHOIS API', credits: 250 },
      ]);
    }
    const balanceCalls = recorder.calls.filter((call) => call.url.pathname === '/user-service/account-balance');
    expect(balanceCalls).toHaveLength(10);
    for (const call of balanceCalls) {
      expect(call.headers.authorization).toMatch(/^Bearer /);
      expect(call.headers.authorization).not.toContain(account.apiKey);
      expect(call.url.searchParams.has('apiKey')).toBe(false);
    }
  });

  it('when balance() names a product, then only that product is listed', async () => {
    const account = await platform.anAccount({ '1': 250, '7': 40 });
    const { client } = aClient(account.apiKey);
    expect(await client.balance({ productId: 7 })).toEqual([{ productId: 7, productName: 'Email Verification API', credits: 40 }]);
  });

  it('when the cached token is within a minute of its expiry, then the next call renews it once', async () => {
    const account = await platform.anAccount();
    let now = Date.now();
    const { client, recorder } = aClient(account.apiKey, { expiresIn: 1800, now: () => now });
    const first = await client.accessToken();

    now += 1800_000 - 61_000;
    await client.balance();
    expect(await client.accessToken()).toBe(first);
    expect(recorder.tokenRequests()).toBe(1);

    now += 2_000;
    await Promise.all([client.balance(), client.balance(), client.accessToken()]);
    expect(recorder.tokenRequests()).toBe(2);
    expect(await client.accessToken()).not.toBe(first);
  });

  it('when the cached token has expired on the server, then ten calls replace it once and all succeed', async () => {
    const account = await platform.anAccount({ '1': 5 });
    const { client, recorder } = aClient(account.apiKey);
    const expired = await client.accessToken();
    await platform.expireToken(expired);

    const balances = await Promise.all(Array.from({ length: 10 }, () => client.balance({ productId: 1 })));

    expect(balances).toEqual(Array.from({ length: 10 }, () => [{ productId: 1, productName: 'WHOIS API', credits: 5 }]));
    expect(recorder.tokenRequests()).toBe(2);
    expect(recorder.calls.filter((call) => call.status === 401)).toHaveLength(10);
    expect(await client.accessToken()).not.toBe(expired);
  });

  it('when a rotation elsewhere revokes the token, then the client fetches one token with the key its key source now holds', async () => {
    const account = await platform.anAccount({ '1': 5 });
    let storedKey = account.apiKey;
    const { client, recorder } = aClient(() => storedKey);
    await client.balance();

    const rotator = new AccountAccessClient({ apiKey: storedKey, ...platform.clientUrls });
    storedKey = await rotator.rotateKey();
    const settings = await Promise.all(Array.from({ length: 5 }, () => client.notificationSettings()));

    expect(settings).toHaveLength(5);
    expect(recorder.tokenRequests()).toBe(2);
    const tokenCalls = recorder.calls.filter((call) => call.url.pathname === '/oauth/token');
    expect(tokenCalls[1]?.headers.authorization).toBe(`Bearer ${btoa(storedKey)}`);
  });

  it('when a rotation elsewhere leaves the client with a dead key, then it asks for one token and fails with 401', async () => {
    const account = await platform.anAccount({ '1': 5 });
    const { client, recorder } = aClient(account.apiKey);
    await client.balance();
    await new AccountAccessClient({ apiKey: account.apiKey, ...platform.clientUrls }).rotateKey();

    const failure = await client.balance().catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({
      status: 401,
      code: 401,
      messages: 'Access restricted. Check credits balance or enter the correct API key.',
    });
    expect(recorder.tokenRequests()).toBe(2);
  });

  it('when categories() is called twice, then the second is answered by a 304 and returns the same list', async () => {
    const account = await platform.anAccount();
    const { client, recorder } = aClient(account.apiKey);

    const first = await client.categories();
    const second = await client.categories();

    expect(first).toHaveLength(698);
    expect(first[0]).toEqual({ id: 'IAB-1', name: 'Automotive', parent: null });
    expect(second).toEqual(first);
    const calls = recorder.calls.filter((call) => call.url.pathname === '/api/v2/categories');
    expect(calls.map((call) => call.status)).toEqual([200, 304]);
    expect(calls[0]?.headers['if-none-match']).toBeUndefined();
    expect(calls[1]?.headers['if-none-match']).toMatch(/^(W\/)?"/);
  });

  it('when categories() is asked by name, then the ABC order is kept apart from the IAB one', async () => {
    const account = await platform.anAccount();
    const { client, recorder } = aClient(account.apiKey);

    const byId = await client.categories();
    const byName = await client.categories({ order: 'ABC' });
    const byNameAgain = await client.categories({ order: 'ABC' });

    expect(byName).toHaveLength(698);
    expect(byName.map((category) => category.id)).not.toEqual(byId.map((category) => category.id));
    expect(byNameAgain).toEqual(byName);
    const statuses = recorder.calls.filter((call) => call.url.pathname === '/api/v2/categories').map((call) => call.status);
    expect(statuses).toEqual([200, 200, 304]);
  });

  it('when rotateKey() answers, then the client works on the new key and the old key is refused', async () => {
    const account = await platform.anAccount({ '1': 30 });
    const { client, recorder } = aClient(account.apiKey);
    const oldToken = await client.accessToken();

    const newKey = await client.rotateKey();

    expect(newKey).toMatch(/^at_[A-Za-z0-9]{29}$/);
    expect(newKey).not.toBe(account.apiKey);
    expect(await client.balance({ productId: 1 })).toEqual([{ productId: 1, productName: 'WHOIS API', credits: 30 }]);
    expect(await client.accessToken()).not.toBe(oldToken);
    const tokenCalls = recorder.calls.filter((call) => call.url.pathname === '/oauth/token');
    expect(tokenCalls.map((call) => call.headers.authorization)).toEqual([`Bearer ${btoa(account.apiKey)}`, `Bearer ${btoa(newKey)}`]);
    expect(await tokenRequestWith(account.apiKey)).toBe(401);
    expect(await tokenRequestWith(newKey)).toBe(200);
    await expect(new AccountAccessClient({ apiKey: account.apiKey, ...platform.clientUrls }).balance()).rejects.toMatchObject({
      status: 401,
    });
  });

  it('when the notification settings are changed, then the named members change and the rest keep their value', async () => {
    const account = await platform.anAccount();
    const { client } = aClient(account.apiKey);

    expect(await client.notificationSettings()).toEqual({
      lowBalanceAlert: { enabled: true, threshold: 10 },
      zeroBalanceAlert: { enabled: true },
      email: expect.stringContaining('@'),
      webhook: null,
    });
    const updated = await client.updateNotificationSettings({ lowBalanceAlert: { threshold: 25 } });

    expect(updated).toEqual({
      lowBalanceAlert: { enabled: true, threshold: 25 },
      zeroBalanceAlert: { enabled: true },
      email: expect.stringContaining('@'),
      webhook: null,
    });
    expect(await client.notificationSettings()).toEqual(updated);
  });

  it('when a value is refused, then the ApiError carries the 422 and its field messages', async () => {
    const account = await platform.anAccount();
    const { client } = aClient(account.apiKey);

    const failure = await client.updateNotificationSettings({ lowBalanceAlert: { threshold: -1 } }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ApiError);
    const error = failure as ApiError;
    expect(error.status).toBe(422);
    expect(error.code).toBe(422);
    expect(error.fieldMessages('lowBalanceAlert.threshold')).toEqual(['The selected low balance alert.threshold is invalid.']);
    expect(error.requestId).toEqual(expect.any(String));
  });

  it('when the key is unknown, then accessToken() fails with the 401 envelope after one request', async () => {
    const { client, recorder } = aClient('at_unknownunknownunknownunknown1');

    await expect(client.accessToken()).rejects.toMatchObject({
      name: 'ApiError',
      status: 401,
      code: 401,
      messages: 'Access restricted. Check credits balance or enter the correct API key.',
    });
    expect(recorder.calls).toHaveLength(1);
  });
});
