import request from 'supertest';
import { anAccount, eventually, startTcpProxy, testServers, type TcpProxy } from '@platform/testing';
import { basicOf, bearerOf, startAuth, testPool, type AuthHarness } from './harness';

const JSON_503 = '{"code":503,"messages":"Service temporarily unavailable. Try your call again later."}';

const issue = (h: AuthHarness, apiKey: string) =>
  request(h.url).post('/oauth/token').set('Authorization', bearerOf(apiKey)).send({ grantType: 'access_token' });
const port = (url: string): number => Number(new URL(url).port);

describe('when Redis is unreachable', () => {
  let proxy: TcpProxy;
  let h: AuthHarness;
  beforeAll(async () => {
    proxy = await startTcpProxy(port(testServers.redisUrl));
    h = await startAuth({ env: { REDIS_URL: proxy.url(testServers.redisUrl) } });
  });
  afterAll(async () => {
    await h.close();
    await proxy.close();
  });

  test('then token requests get 503 with Retry-After at once, readiness fails, and both recover when Redis returns', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    expect((await issue(h, account.apiKey)).status).toBe(200);

    proxy.cut();
    const started = Date.now();
    const res = await issue(h, account.apiKey);
    expect(res.status).toBe(503);
    expect(res.text).toBe(JSON_503);
    expect(res.headers['retry-after']).toBe('5');
    expect(Date.now() - started).toBeLessThan(2500);
    expect((await request(h.url).get('/health/ready')).status).toBe(503);

    const introspection = await request(h.url)
      .post('/oauth/introspect')
      .type('form')
      .set('Authorization', bearerOf(account.apiKey))
      .send('token=x');
    expect(introspection.status).toBe(503);

    proxy.restore();
    await eventually(
      async () => ((await issue(h, account.apiKey)).status === 200 ? true : undefined),
      10_000,
      'issuance after Redis returns',
    );
    expect((await request(h.url).get('/health/ready')).status).toBe(200);
  });
});

describe('when Postgres is unreachable', () => {
  let proxy: TcpProxy;
  let h: AuthHarness;
  beforeAll(async () => {
    proxy = await startTcpProxy(port(testServers.databaseUrl));
    h = await startAuth({ databaseUrl: proxy.url(testServers.databaseUrl) });
  });
  afterAll(async () => {
    proxy.restore();
    await h.close();
    await proxy.close();
  });

  test('then issuance, introspection and readiness go on: the auth service reads Postgres only to reconcile after a Redis loss', async () => {
    const direct = await testPool();
    const account = await anAccount(direct, { credits: { 1: 100 }, access: h.access });
    await direct.end();
    expect((await issue(h, account.apiKey)).status).toBe(200);

    proxy.cut();
    const res = await issue(h, account.apiKey);
    expect(res.status).toBe(200);
    const introspection = await request(h.url)
      .post('/oauth/introspect')
      .type('form')
      .set('Authorization', basicOf(account.id, account.apiKey))
      .send(`token=${res.body.accessToken as string}`);
    expect(introspection.body).toMatchObject({ active: true });
    expect((await request(h.url).get('/health/ready')).status).toBe(200);
  });
});
