import { Redis } from 'ioredis';
import request from 'supertest';
import { createMemoryAccessStore, createCredentialVerifier, generateApiKey } from '@platform/credentials';
import { anAccount, silentLogger, testServers, uniqueId, withStarted } from '@platform/testing';
import { loadConfig, runAuthService } from '../src';
import { ADMIN_TOKEN, basicOf, bearerOf, startAuth, testPool, type AuthHarness } from './harness';

const JSON_429 = '{"code":429,"messages":"Too Many Requests. Try your call again later."}';
const XML_429 =
  '<?xml version="1.0" encoding="utf-8"?><xml><code>429</code><messages>Too Many Requests. Try your call again later.</messages></xml>';

const issue = (url: string, apiKey: string, query = '', forwardedFor?: string) => {
  const call = request(url).post(`/oauth/token${query}`).set('Authorization', bearerOf(apiKey));
  if (forwardedFor !== undefined) call.set('X-Forwarded-For', forwardedFor);
  return call.send({ grantType: 'access_token' });
};

function expectRetryAfter(value: unknown): void {
  expect(value).toMatch(/^[0-9]+$/);
  expect(Number(value)).toBeGreaterThanOrEqual(1);
  expect(Number(value)).toBeLessThanOrEqual(60);
}

describe('issuances per account (TOKEN_RATE_PER_ACCOUNT)', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ env: { TOKEN_RATE_PER_ACCOUNT: '3' } });
  });
  afterAll(async () => {
    await h.close();
  });

  test('when an account asks for more tokens a minute than allowed, then 429 with Retry-After, in JSON and in XML', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    for (let index = 0; index < 3; index += 1) expect((await issue(h.url, account.apiKey)).status).toBe(200);

    const refused = await issue(h.url, account.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.text).toBe(JSON_429);
    expectRetryAfter(refused.headers['retry-after']);

    const xml = await issue(h.url, account.apiKey, '?outputFormat=xml');
    expect(xml.status).toBe(429);
    expect(xml.text).toBe(XML_429);
    expectRetryAfter(xml.headers['retry-after']);
  });

  test('when an account is over its limit, then other accounts still get tokens', async () => {
    const busy = await h.account({ credits: { 1: 100 } });
    const quiet = await h.account({ credits: { 1: 100 } });
    for (let index = 0; index < 4; index += 1) await issue(h.url, busy.apiKey);
    expect((await issue(h.url, quiet.apiKey)).status).toBe(200);
  });

  test('when both flows are used, then both count as issuances and the RFC flow’s 429 keeps the code/messages envelope', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    const grant = () =>
      request(h.url)
        .post('/oauth/token')
        .type('form')
        .set('Authorization', basicOf(account.id, account.apiKey))
        .send('grant_type=client_credentials');
    expect((await grant()).status).toBe(200);
    expect((await issue(h.url, account.apiKey)).status).toBe(200);
    expect((await grant()).status).toBe(200);
    const refused = await grant();
    expect(refused.status).toBe(429);
    expect(refused.text).toBe(JSON_429);
    expectRetryAfter(refused.headers['retry-after']);
  });

  test('when issuance is refused for the rate, then no extra token was left in Redis', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    const before = (await h.redis.keys(`${h.prefix}{*}:tok:*`)).length;
    for (let index = 0; index < 5; index += 1) await issue(h.url, account.apiKey);
    expect((await h.redis.keys(`${h.prefix}{*}:tok:*`)).length).toBe(before + 3);
  });

  test('when the request is invalid (422), then it does not use up the account’s issuances', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    for (let index = 0; index < 5; index += 1) {
      const res = await request(h.url).post('/oauth/token').set('Authorization', bearerOf(account.apiKey)).send({ grantType: 'nope' });
      expect(res.status).toBe(422);
    }
    expect((await issue(h.url, account.apiKey)).status).toBe(200);
  });
});

describe('failed attempts per client address (AUTH_FAILURES_PER_IP)', () => {
  /** Runs `body` with an auth service of its own (AUTH_FAILURES_PER_IP=3 and `env`), closed after it. */
  const withAuth = (body: (h: AuthHarness) => Promise<void>, env: Record<string, string> = {}) =>
    withStarted(() => startAuth({ env: { AUTH_FAILURES_PER_IP: '3', ...env } }), body);

  test('when an address fails more often than allowed, then its failing requests get 429 until the window ends, in JSON and in XML', async () => {
    await withAuth(async (h) => {
      for (let index = 0; index < 3; index += 1) expect((await issue(h.url, generateApiKey())).status).toBe(401);
      const over = await issue(h.url, generateApiKey());
      expect(over.status).toBe(429);
      expect(over.text).toBe(JSON_429);
      expect(over.headers['cache-control']).toBe('no-store');
      expectRetryAfter(over.headers['retry-after']);

      const xml = await issue(h.url, generateApiKey(), '?outputFormat=XML');
      expect(xml.status).toBe(429);
      expect(xml.text).toBe(XML_429);
      expectRetryAfter(xml.headers['retry-after']);
    });
  });

  test('when an address is over its limit, then a request from it with a valid key is still served (a shared address cannot lock others out)', async () => {
    await withAuth(async (h) => {
      const account = await h.account({ credits: { 1: 100 } });
      for (let index = 0; index < 5; index += 1) await issue(h.url, generateApiKey());
      expect((await issue(h.url, generateApiKey())).status).toBe(429);

      const good = await issue(h.url, account.apiKey);
      expect(good.status).toBe(200);
      const grant = await request(h.url)
        .post('/oauth/token')
        .type('form')
        .set('Authorization', basicOf(account.id, account.apiKey))
        .send('grant_type=client_credentials');
      expect(grant.status).toBe(200);
      const introspection = await request(h.url)
        .post('/oauth/introspect')
        .type('form')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send(`token=${good.body.accessToken as string}`);
      expect(introspection.body).toMatchObject({ active: true });
    });
  });

  test('when an address guessed admin tokens on introspection past the limit, then even the right admin token gets 429 there; the account’s own Basic still works', async () => {
    await withAuth(async (h) => {
      const account = await h.account({ credits: { 1: 100 } });
      const good = await issue(h.url, account.apiKey);
      const introspect = (authorization: string) =>
        request(h.url)
          .post('/oauth/introspect')
          .type('form')
          .set('Authorization', authorization)
          .send(`token=${good.body.accessToken as string}`);
      expect((await introspect(`Bearer ${ADMIN_TOKEN}`)).body).toMatchObject({ active: true });
      for (let index = 0; index < 3; index += 1)
        expect((await introspect(`Bearer wrong-admin-token-guess-${index}-0123456789abcdef`)).status).toBe(401);
      expect((await introspect('Bearer wrong-admin-token-guess-over-0123456789abcdef')).status).toBe(429);

      const right = await introspect(`Bearer ${ADMIN_TOKEN}`);
      expect(right.status).toBe(429);
      expect(right.text).toBe(JSON_429);
      expectRetryAfter(right.headers['retry-after']);
      expect((await introspect(basicOf(account.id, account.apiKey))).body).toMatchObject({ active: true });
    });
  });

  test('when an address has failed exactly as often as allowed, then its good key still works', async () => {
    await withAuth(async (h) => {
      const account = await h.account({ credits: { 1: 100 } });
      for (let index = 0; index < 3; index += 1) await issue(h.url, generateApiKey());
      expect((await issue(h.url, account.apiKey)).status).toBe(200);
    });
  });

  test('when the 401s come from introspection and revocation, then they count too, and failures there are refused as well', async () => {
    await withAuth(async (h) => {
      const badIntrospect = () =>
        request(h.url).post('/oauth/introspect').type('form').set('Authorization', 'Bearer wrong').send('token=x');
      const badRevoke = () =>
        request(h.url).post('/oauth/revoke').type('form').set('Authorization', basicOf(1, generateApiKey())).send('token=x');
      expect((await badIntrospect()).status).toBe(401);
      expect((await badRevoke()).status).toBe(401);
      expect((await issue(h.url, generateApiKey())).status).toBe(401);
      const refused = await badIntrospect();
      expect(refused.status).toBe(429);
      expect(refused.text).toBe(JSON_429);

      expectRetryAfter(refused.headers['retry-after']);
      expect((await badRevoke()).status).toBe(429);

      const good = await request(h.url)
        .post('/oauth/introspect')
        .type('form')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send('token=x');
      expect(good.status).toBe(200);
      expect(good.body).toEqual({ active: false });
    });
  });

  test('when validation fails (422), then it is not a failed attempt', async () => {
    await withAuth(async (h) => {
      const account = await h.account({ credits: { 1: 100 } });
      for (let index = 0; index < 5; index += 1) {
        expect((await request(h.url).post('/oauth/token').set('Authorization', bearerOf(account.apiKey)).send({})).status).toBe(422);
      }
      expect((await issue(h.url, account.apiKey)).status).toBe(200);
    });
  });

  test('when TRUST_PROXY is off, then X-Forwarded-For is ignored: every failure counts against the connecting address', async () => {
    await withAuth(async (h) => {
      const account = await h.account({ credits: { 1: 100 } });
      for (let index = 0; index < 4; index += 1) await issue(h.url, generateApiKey(), '', `10.0.0.${index}`);
      expect((await issue(h.url, generateApiKey(), '', '10.9.9.9')).status).toBe(429);
      expect((await issue(h.url, account.apiKey, '', '10.9.9.9')).status).toBe(200);
    });
  });

  test('when TRUST_PROXY names the proxy, then the address the proxy appended is counted (a client-written entry does not help)', async () => {
    await withAuth(
      async (h) => {
        const account = await h.account({ credits: { 1: 100 } });
        for (let index = 0; index < 4; index += 1) await issue(h.url, generateApiKey(), '', `spoofed-${index}, 10.0.0.1`);
        expect((await issue(h.url, generateApiKey(), '', '10.0.0.1')).status).toBe(429);
        expect((await issue(h.url, generateApiKey(), '', '10.0.0.2')).status).toBe(401);
        expect((await issue(h.url, account.apiKey, '', '10.0.0.1')).status).toBe(200);
      },
      { TRUST_PROXY: '127.0.0.1' },
    );
  });
});

describe('embedded mode (memory access store, memory limiter)', () => {
  test('when the service runs on the memory access store, then tokens, revocation and both limits work without Redis', async () => {
    const pool = await testPool();
    const access = createMemoryAccessStore();
    const prefix = `test:embedded:${uniqueId()}:`;
    const config = loadConfig(
      { AUTH_PORT: '0', TOKEN_RATE_PER_ACCOUNT: '2', AUTH_FAILURES_PER_IP: '2', REDIS_KEY_PREFIX: prefix },
      { requireInfrastructure: false },
    );
    const service = await runAuthService({ config, logger: silentLogger(), given: { pool, redis: { access, client: undefined } } });
    try {
      const account = await anAccount(pool, { credits: { 1: 100 }, access });
      const first = await issue(service.url, account.apiKey);
      expect(first.status).toBe(200);
      const verifier = createCredentialVerifier({ access });
      await expect(verifier.verify(first.body.accessToken as string)).resolves.toMatchObject({ accountId: account.id });
      expect((await issue(service.url, account.apiKey)).status).toBe(200);
      expect((await issue(service.url, account.apiKey)).status).toBe(429);

      await access.deleteKeys([account.keyHash]);
      await expect(verifier.verify(first.body.accessToken as string)).resolves.toBeUndefined();

      for (let index = 0; index < 2; index += 1) expect((await issue(service.url, generateApiKey())).status).toBe(401);
      expect((await issue(service.url, generateApiKey())).status).toBe(429);
      expect((await request(service.url).get('/health/ready')).status).toBe(200);
    } finally {
      await service.stop();
      await access.close();
      await pool.end();
    }
    const redis = new Redis(testServers.redisUrl);
    expect(await redis.keys(`${prefix}*`)).toEqual([]);
    await redis.quit();
  });
});
