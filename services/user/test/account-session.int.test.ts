/**
 * The account page's session (CONTRACT §4.7): the API key signs the page in whatever the balance;
 * the session reads the account's own data and nothing else (the usage API, which products call,
 * refuses it); signing out or rotating the key ends it at once.
 */
import { ACCESS_RESTRICTED, KEY_PREFIX, startHarness, testConfig, useHarness, XML_DECLARATION } from './harness';
import { postUsage, usageBody } from './usage-calls';

const h = useHarness();

async function signIn(apiKey: string): Promise<string> {
  const res = await h.http.post('/account/session').send({ apiKey });
  expect(res.status).toBe(200);
  return (res.body as { session: string }).session;
}

describe('the account page session', () => {
  it('when every pool of the account is at 0, then the key still signs the page in and the session reads the balance 0', async () => {
    const account = await h.account({ 1: 0, 7: 0 });
    const res = await h.http.post('/account/session').send({ apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      session: expect.stringMatching(/^ps_[A-Za-z0-9_-]{53}$/),
      expiresIn: 3600,
      account: { id: account.id, email: account.email },
    });
    const session = (res.body as { session: string }).session;
    const balance = await h.http.get('/user-service/account-balance').set('Authorization', `Bearer ${session}`);
    expect(balance.status).toBe(200);
    expect((balance.body as { data: Array<{ credits: number }> }).data.map((item) => item.credits)).toEqual([0, 0, 0]);
    for (const path of [
      '/user-service/usage-history',
      '/user-service/notification-settings',
      '/user-service/webhook-deliveries',
      '/account/session',
    ]) {
      expect((await h.http.get(path).set('Authorization', `Bearer ${session}`)).status).toBe(200);
    }
    expect((await h.http.get('/account/session').query({ apiKey: session })).body).toEqual({
      account: { id: account.id, email: account.email },
    });
  });

  it('when a product presents the session to the usage API, then it is refused like a wrong key', async () => {
    const account = await h.account({ 1: 50 });
    const session = await signIn(account.apiKey);
    const res = await postUsage(h.http, usageBody(session));
    expect(res.status).toBe(401);
    expect((await postUsage(h.http, usageBody(account.apiKey))).status).toBe(200);
  });

  it('when the key is wrong, missing or a token, then 401 with the contract body (JSON and XML)', async () => {
    const account = await h.account({ 1: 5 });
    const token = await h.token(account);
    for (const apiKey of [`at_${'x'.repeat(29)}`, undefined, token]) {
      const res = await h.http.post('/account/session').send(apiKey === undefined ? {} : { apiKey });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 401, messages: ACCESS_RESTRICTED });
    }
    const xml = await h.http.post('/account/session').query({ outputFormat: 'XML' }).send({ apiKey: 'at_nope' });
    expect(xml.text).toBe(`${XML_DECLARATION}<xml><code>401</code><messages>${ACCESS_RESTRICTED}</messages></xml>`);
  });

  it('when one address fails more than AUTH_FAILURES_PER_IP times a minute, then 429 with Retry-After', async () => {
    const limited = await startHarness({ config: testConfig({ AUTH_FAILURES_PER_IP: '3', REDIS_KEY_PREFIX: `${KEY_PREFIX}limited:` }) });
    try {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 4; attempt += 1) {
        statuses.push((await limited.http.post('/account/session').send({ apiKey: `at_${'y'.repeat(29)}` })).status);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      const refused = await limited.http.post('/account/session').send({ apiKey: `at_${'y'.repeat(29)}` });
      expect(refused.body).toEqual({ code: 429, messages: 'Too Many Requests. Try your call again later.' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });

  it('when the key is rotated, then the session is refused at once, like any token', async () => {
    const account = await h.account({ 1: 5 });
    const session = await signIn(account.apiKey);
    const rotated = await h.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
    expect(rotated.status).toBe(200);
    const refused = await h.http.get('/user-service/account-balance').set('Authorization', `Bearer ${session}`);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="user", error="invalid_token", error_description="invalid_credential"');
    // The session cannot rotate the key either: only the key itself can.
    expect(
      (
        await h.http
          .get('/user-service/api-key/generate')
          .query({ currentApiKey: await signIn((rotated.body as { apiKey: string }).apiKey) })
      ).status,
    ).toBe(422);
  });

  it('when the page signs out, then its session is refused at once', async () => {
    const account = await h.account({ 1: 5 });
    const session = await signIn(account.apiKey);
    const out = await h.http.post('/account/session/revoke').set('Authorization', `Bearer ${session}`);
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ revoked: true });
    expect((await h.http.get('/account/session').set('Authorization', `Bearer ${session}`)).status).toBe(401);
    expect((await h.http.post('/account/session/revoke').set('Authorization', `Bearer ${session}`)).status).toBe(401);
  });
});
