/**
 * Disabling and rotating by the operator (issue 29), across processes: the user, auth and
 * categorization services each run as their own Node.js process on one Postgres and one Redis,
 * and a product service's gateway (@platform/product-gateway, in this process) calls the user
 * service's usage API. Once the admin API has answered, the account's key and every token are
 * refused by all of them; enabling brings the key back, not the earlier tokens; an operator's
 * rotation refuses the old key and its tokens everywhere too.
 */
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { closeRedis, connectRedis } from '@platform/credentials';
import type { ProductGateway } from '@platform/product-gateway';
import {
  createPrivateDatabase,
  deleteKeys,
  freePort,
  silentLogger,
  startServiceProcess,
  testServers,
  uniqueId,
  type PrivateDatabase,
  type ServiceProcess,
} from '@platform/testing';
import { productApp } from './support/product-app';
import { seedToken } from './support/seed-token';

const ROOT = path.resolve(__dirname, '..');
const ADMIN_TOKEN = `operator-disable-admin-token-${uniqueId()}`;
const SERVICE_JWT_SECRET = `operator-disable-service-jwt-${uniqueId()}-0123456789`;
const PRODUCT_PATH = '/whoisserver/WhoisService';

describe('an account disabled or rotated by the operator, across processes', () => {
  let db: PrivateDatabase;
  const prefix = `test:operator-disable:${uniqueId()}:`;
  const processes: ServiceProcess[] = [];
  let urls: { user: string; auth: string; categorization: string };
  let gateway: ProductGateway;
  let product: Express;

  async function start(script: string, portVariable: string): Promise<string> {
    const port = await freePort();
    const service = await startServiceProcess({
      script,
      cwd: ROOT,
      port,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: db.url,
        REDIS_URL: testServers.redisUrl,
        REDIS_KEY_PREFIX: prefix,
        AMQP_URL: testServers.amqpUrl,
        ADMIN_TOKEN,
        SERVICE_JWT_SECRET,
        AUTH_FAILURES_PER_IP: '100000',
        // The issuer the auth service names (no request goes there).
        AUTH_URL: 'http://auth.operator-disable.test',
        LOG_LEVEL: 'warn',
        [portVariable]: String(port),
      },
    });
    processes.push(service);
    return service.url;
  }

  beforeAll(async () => {
    db = await createPrivateDatabase('operator_disable');
    // The user service first: it creates the tables the others read.
    const user = await start('services/user/src/main.ts', 'USER_PORT');
    const [auth, categorization] = await Promise.all([
      start('services/auth/src/main.ts', 'AUTH_PORT'),
      start('services/categorization/src/main.ts', 'CATEGORIZATION_PORT'),
    ]);
    urls = { user, auth, categorization };
    ({ app: product, gateway } = productApp({
      userUrl: user,
      serviceJwtSecret: SERVICE_JWT_SECRET,
      productId: 1,
      path: PRODUCT_PATH,
      answer: (call) => ({ WhoisRecord: { domainName: call.domainName, creditsLeft: call.credits } }),
    }));
  }, 180_000);

  afterAll(async () => {
    await gateway?.close();
    for (const service of processes.reverse()) await service.stop();
    const redis = await connectRedis(testServers.redisUrl, silentLogger());
    await deleteKeys(redis, prefix);
    await closeRedis(redis);
    await db?.drop();
  }, 60_000);

  const admin = () => ({ Authorization: `Bearer ${ADMIN_TOKEN}` });

  async function createAccount(): Promise<{ id: number; apiKey: string }> {
    const res = await request(urls.user)
      .post('/admin/v1/accounts')
      .set(admin())
      .send({ email: `${uniqueId('disable')}@example.test`, credits: { 1: 1000 } });
    expect(res.status).toBe(201);
    return res.body as { id: number; apiKey: string };
  }

  async function mint(apiKey: string): Promise<{ status: number; token: string }> {
    const res = await seedToken(urls.auth, apiKey);
    return { status: res.status, token: res.body.accessToken as string };
  }

  /** What every service answers to a credential (key or token). */
  async function seenBy(credential: string): Promise<Record<string, unknown>> {
    const introspection = await request(urls.auth).post('/oauth/introspect').set(admin()).type('form').send({ token: credential });
    return {
      user: (await request(urls.user).get('/user-service/account-balance').query({ apiKey: credential })).status,
      categorization: (await request(urls.categorization).get('/api/v2/categories').query({ apiKey: credential })).status,
      gateway: (await request(product).get(PRODUCT_PATH).query({ domainName: 'example.com', apiKey: credential })).status,
      introspection: introspection.body.active,
    };
  }

  const ALLOWED = { user: 200, categorization: 200, gateway: 200 };
  const REFUSED = { user: 401, categorization: 401, gateway: 401, introspection: false };

  it('when the operator disables an account, then its key and tokens are refused by every service at once; enabling brings back the key only', async () => {
    const account = await createAccount();
    const before = await mint(account.apiKey);
    expect(before.status).toBe(200);
    expect(await seenBy(before.token)).toEqual({ ...ALLOWED, introspection: true });
    expect(await seenBy(account.apiKey)).toMatchObject(ALLOWED);

    expect((await request(urls.user).patch(`/admin/v1/accounts/${account.id}`).set(admin()).send({ disabled: true })).status).toBe(200);
    expect(await seenBy(before.token)).toEqual(REFUSED);
    expect(await seenBy(account.apiKey)).toMatchObject({ user: 401, categorization: 401, gateway: 401 });
    expect((await mint(account.apiKey)).status).toBe(401);

    expect((await request(urls.user).patch(`/admin/v1/accounts/${account.id}`).set(admin()).send({ disabled: false })).status).toBe(200);
    expect(await seenBy(before.token)).toEqual(REFUSED);
    expect(await seenBy(account.apiKey)).toMatchObject(ALLOWED);
    const after = await mint(account.apiKey);
    expect(after.status).toBe(200);
    expect(await seenBy(after.token)).toEqual({ ...ALLOWED, introspection: true });
  });

  it("when the operator rotates an account's key, then the old key and its tokens are refused by every service at once", async () => {
    const account = await createAccount();
    const before = await mint(account.apiKey);
    const rotated = await request(urls.user).post(`/admin/v1/accounts/${account.id}/api-key`).set(admin());
    expect(rotated.status).toBe(200);
    expect(await seenBy(before.token)).toEqual(REFUSED);
    expect(await seenBy(account.apiKey)).toMatchObject({ user: 401, categorization: 401, gateway: 401 });
    expect(await seenBy(rotated.body.apiKey as string)).toMatchObject(ALLOWED);
  });
});
