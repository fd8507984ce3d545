import { createMemoryAccessStore, generateApiKey, hashSecret } from '@platform/credentials';
import { withDependencyProxy } from './dependency-proxy';
import { startHarness, testConfig, useHarness } from './harness';

const h = useHarness();

describe('operations endpoints', () => {
  it('when /health/live and /health/ready are called, then ok and ready', async () => {
    expect((await h.http.get('/health/live')).body).toEqual({ status: 'ok' });
    const ready = await h.http.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('when /openapi.json is read, then an OpenAPI 3.1 document naming the public endpoints', async () => {
    const res = await h.http.get('/openapi.json');
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/user-service/account-balance',
        '/service/account-balance',
        '/user-service/api-key/generate',
        '/user-service/notification-settings',
      ]),
    );
  });

  it('when requests were served, then /metrics counts them by route template and status', async () => {
    await h.http.get('/user-service/account-balance');
    const res = await h.http.get('/metrics');
    expect(res.text).toMatch(/http_requests_total\{[^}]*route="\/user-service\/account-balance"[^}]*status="401"[^}]*\} \d+/);
  });

  it('when an unknown path is called, then 404 in the code/messages envelope', async () => {
    const res = await h.http.get('/user-service/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, messages: 'Not found.' });
  });

  it('when key generation is called with POST, then 404 (only GET is served)', async () => {
    expect((await h.http.post('/user-service/api-key/generate').send({})).status).toBe(404);
  });
});

describe('start-up and dependencies', () => {
  it('when Redis is unreachable, then readiness is 503 naming redis, and a token check answers 503 instead of 500', async () => {
    await withDependencyProxy('redis', async (own, proxy) => {
      const account = await own.account({ 1: 10 });
      const token = await own.token(account);
      proxy.cut();
      const ready = await own.http.get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.redis).not.toBe('ok');
      expect(ready.body.checks.postgres).toBe('ok');
      const res = await own.http.get('/user-service/account-balance').query({ apiKey: token });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBeDefined();
      // The balance read with an API key checks the key in the same Postgres query: still served.
      expect((await own.http.get('/user-service/account-balance').query({ apiKey: account.apiKey })).status).toBe(200);
    });
  });

  it('when Postgres is unreachable, then balance reads answer 503, and recover when it returns', async () => {
    await withDependencyProxy('postgres', async (own, proxy) => {
      const account = await own.account({ 1: 10 });
      proxy.cut();
      const res = await own.http.get('/user-service/account-balance').query({ apiKey: account.apiKey });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ code: 503, messages: 'Service temporarily unavailable. Try your call again later.' });
      expect((await own.http.get('/health/ready')).status).toBe(503);
      proxy.restore();
      expect((await own.http.get('/user-service/account-balance').query({ apiKey: account.apiKey })).status).toBe(200);
    });
  });

  it('when the embedded quickstart provides an access store, then the service uses it and leaves it open on stop', async () => {
    const access = createMemoryAccessStore();
    const own = await startHarness({ config: { ...testConfig(), redisUrl: undefined }, given: { redis: { access, client: undefined } } });
    try {
      const account = await own.account({ 1: 10 });
      const res = await own.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
      expect(res.status).toBe(200);
      expect(await access.findKey(hashSecret(res.body.apiKey as string))).toEqual({
        accountId: account.id,
        generation: 1,
        hasCredits: true,
      });
    } finally {
      await own.stop();
    }
    expect(await access.findKey(hashSecret(generateApiKey()))).toBeUndefined();
    await access.close();
  });

  it('when no admin token is configured (neither ADMIN_TOKEN nor ADMIN_TOKENS), then the service refuses to start', async () => {
    const config = { ...testConfig(), adminTokens: [] };
    await expect(startHarness({ config })).rejects.toThrow('ADMIN_TOKEN');
  });
});
