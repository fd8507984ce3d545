/**
 * The revocation invariant across the three HTTP services (CONTRACT §3): once key generation
 * has answered 200, no token issued before it is accepted anywhere, also when Redis fails
 * between the steps. Real Postgres; real Redis behind a TCP proxy that can be cut.
 */
import request from 'supertest';
import type { Pool } from 'pg';
import { closeRedis, connectRedis, createRedisAccessStore, type AccessStore } from '@platform/credentials';
import { anAccount, silentLogger, startTcpProxy, testServers, type TcpProxy } from '@platform/testing';
import { startPlatform, type Platform } from '@platform/testing/platform';
import { seedToken } from './support/seed-token';

const ADMIN_TOKEN = 'revocation-test-admin-token-0123456789';
const REDIS_PORT = Number(new URL(testServers.redisUrl).port || 6379);

describe('revocation across auth, user and categorization', () => {
  let proxy: TcpProxy;
  let platform: Platform;
  let pool: Pool;
  let redis: Awaited<ReturnType<typeof connectRedis>>;
  let access: AccessStore;
  let auth: string;
  let user: string;
  let categorization: string;

  beforeAll(async () => {
    proxy = await startTcpProxy(REDIS_PORT);
    // The services reach Redis through the proxy; the test's own writes go straight to it.
    platform = await startPlatform({
      name: 'revocation',
      services: ['user', 'categorization', 'auth'],
      bus: 'in-process',
      env: {
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        ADMIN_TOKEN,
        SERVICE_JWT_SECRET: 'revocation-test-service-jwt-secret-0123456789',
        AUTH_URL: 'http://auth.revocation.test',
      },
    });
    pool = platform.pool;
    redis = await connectRedis(testServers.redisUrl, silentLogger());
    access = createRedisAccessStore(redis, { keyPrefix: platform.prefix });
    [user, categorization, auth] = [platform.url('user'), platform.url('categorization'), platform.url('auth')];
  }, 60_000);

  afterAll(async () => {
    proxy.restore();
    await platform?.stop();
    await proxy.close();
    await closeRedis(redis);
  });

  async function issueToken(apiKey: string): Promise<string> {
    const response = await seedToken(auth, apiKey, { expiresIn: 1800 });
    expect(response.status).toBe(200);
    return response.body.accessToken as string;
  }

  /** What each service answers to the token: balance and categories status, introspection activity. */
  async function seenBy(token: string): Promise<{ user: number; categorization: number; introspection: unknown }> {
    const balance = await request(user).get('/user-service/account-balance').set('Authorization', `Bearer ${token}`);
    const categories = await request(categorization).get('/api/v2/categories').query({ apiKey: token });
    const introspection = await request(auth)
      .post('/oauth/introspect')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .type('form')
      .send({ token });
    return {
      user: balance.status,
      categorization: categories.status,
      introspection: introspection.status === 200 ? introspection.body.active : introspection.status,
    };
  }

  /** seenBy once no service answers 503 any more (Redis clients reconnect with backoff). */
  async function afterRecovery(token: string): Promise<Awaited<ReturnType<typeof seenBy>>> {
    const deadline = Date.now() + 15_000;
    let seen = await seenBy(token);
    while (Object.values(seen).includes(503) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      seen = await seenBy(token);
    }
    return seen;
  }

  it('when the key is regenerated, then every earlier token is refused by all three services at once', async () => {
    const account = await anAccount(pool, { credits: { 1: 50 }, access });
    const [first, second] = [await issueToken(account.apiKey), await issueToken(account.apiKey)];
    expect(await seenBy(first)).toEqual({ user: 200, categorization: 200, introspection: true });

    const rotated = await request(user).get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
    expect(rotated.status).toBe(200);

    for (const token of [first, second]) expect(await seenBy(token)).toEqual({ user: 401, categorization: 401, introspection: false });
    // The old key mints nothing more; the new key does.
    const withOldKey = await request(auth)
      .post('/oauth/token')
      .set('Authorization', `Bearer ${Buffer.from(account.apiKey).toString('base64')}`)
      .send({ grantType: 'access_token' });
    expect(withOldKey.status).toBe(401);
    expect(await seenBy(await issueToken(rotated.body.apiKey as string))).toEqual({ user: 200, categorization: 200, introspection: true });
  });

  it('when Redis stops right after a regeneration, then the earlier token is refused everywhere, during and after the outage', async () => {
    const account = await anAccount(pool, { credits: { 1: 50 }, access });
    const token = await issueToken(account.apiKey);
    expect((await request(user).get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey })).status).toBe(200);

    proxy.cut();
    try {
      const during = await seenBy(token);
      expect(during.user).not.toBe(200);
      expect(during.categorization).not.toBe(200);
      expect(during.introspection).not.toBe(true);
    } finally {
      proxy.restore();
    }
    // ioredis reconnects with backoff; once every service has, the answer is the plain 401.
    expect(await afterRecovery(token)).toEqual({ user: 401, categorization: 401, introspection: false });
  });

  it('when Redis is down at the moment of regeneration, then it answers 503, changes nothing, and the key and its tokens keep working', async () => {
    const account = await anAccount(pool, { credits: { 1: 50 }, access });
    const token = await issueToken(account.apiKey);

    proxy.cut();
    let rotated: request.Response;
    try {
      rotated = await request(user).get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
    } finally {
      proxy.restore();
    }
    expect(rotated.status).toBe(503);
    expect(rotated.headers['retry-after']).toBeDefined();
    expect(rotated.body).toEqual({ code: 503, messages: 'Service temporarily unavailable. Try your call again later.' });

    expect(await afterRecovery(token)).toEqual({ user: 200, categorization: 200, introspection: true });
    expect((await request(user).get('/user-service/account-balance').query({ apiKey: account.apiKey })).status).toBe(200);
  });
});
