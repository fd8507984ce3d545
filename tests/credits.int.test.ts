/**
 * The credit rule of token issuance across the user and auth services (CONTRACT §3, §4.1): an
 * account whose pools are all at 0 cannot mint from the moment the debit (or adjustment) that
 * emptied them has answered, and can again from the moment a top-up has answered. No cache in
 * any service delays either: each request below is the very next one after the change. Real
 * Postgres and Redis; the user service of the failure cases writes to Redis through a store
 * whose writes the test can make fail.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { connectRedis, closeRedis, createRedisAccessStore, signServiceJwt, type AccessStore } from '@platform/credentials';
import { eventually, silentLogger, uniqueId } from '@platform/testing';
import { startPlatform, type Platform } from '@platform/testing/platform';
import { seedToken } from './support/seed-token';

const ADMIN_TOKEN = 'credits-test-admin-token-0123456789';
const SERVICE_JWT_SECRET = 'credits-test-service-jwt-secret-0123456789';

describe('zero-credit refusal and top-up re-allowance across user and auth', () => {
  // A database of its own: a grant left pending here must not be swept by another file's service (another Redis prefix).
  let platform: Platform;
  let redis: Awaited<ReturnType<typeof connectRedis>>;
  let user: string;
  let fragileUser: string;
  let auth: string;
  /** When set, every write of the fragile user service to the access store fails. */
  let writesFail = false;

  beforeAll(async () => {
    // Only the fragile service sweeps pending grants while the tests run (the other sweeps once, at start).
    platform = await startPlatform({
      name: 'credits',
      services: ['user', 'auth'],
      bus: 'in-process',
      env: { ADMIN_TOKEN, SERVICE_JWT_SECRET },
      serviceEnv: { user: { ACCESS_REPAIR_SWEEP_MS: String(3_600_000) }, auth: { AUTH_URL: 'http://auth.test' } },
    });
    redis = await connectRedis(platform.env.REDIS_URL as string, silentLogger());
    const real = createRedisAccessStore(redis, { keyPrefix: platform.prefix });
    const failing =
      <A extends unknown[]>(write: (...args: A) => Promise<void>) =>
      (...args: A) =>
        writesFail ? Promise.reject(new Error('Connection is closed.')) : write(...args);
    const fragile: AccessStore = {
      ...real,
      putKeys: failing(real.putKeys),
      deleteKeys: failing(real.deleteKeys),
      setPoolCredit: failing(real.setPoolCredit),
    };
    user = platform.url('user');
    auth = platform.url('auth');
    fragileUser = await platform.another('user', { ACCESS_REPAIR_SWEEP_MS: '200' }, { redis: { access: fragile, client: undefined } });
  }, 60_000);

  afterAll(async () => {
    await platform?.stop();
    await closeRedis(redis);
  });

  const admin = (base: string) => ({
    createAccount: (credits: Record<string, number>) =>
      request(base)
        .post('/admin/v1/accounts')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ email: `${uniqueId('credits')}@example.test`, credits }),
    credit: (accountId: number, productId: number, amount: number) =>
      request(base)
        .post(`/admin/v1/accounts/${accountId}/credits`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ productId, amount }),
    balance: (accountId: number) => request(base).get(`/admin/v1/accounts/${accountId}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  });

  const debit = (base: string, credential: string, productId: number, units: number) =>
    request(base)
      .post('/internal/v1/usage')
      .set(
        'Authorization',
        `Bearer ${signServiceJwt({ issuer: 'credits-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 })}`,
      )
      .send({ credential, productId, units, requestId: randomUUID() });

  const seed = (apiKey: string) => seedToken(auth, apiKey);
  const clientCredentials = (accountId: number, apiKey: string) =>
    request(auth)
      .post('/oauth/token')
      .type('form')
      .set('Authorization', `Basic ${Buffer.from(`${accountId}:${apiKey}`).toString('base64')}`)
      .send('grant_type=client_credentials');
  /** The status of both token flows, asked right now. */
  const mintStatus = async (account: { id: number; apiKey: string }): Promise<[number, number]> => [
    (await seed(account.apiKey)).status,
    (await clientCredentials(account.id, account.apiKey)).status,
  ];

  async function anAccount(credits: Record<string, number>): Promise<{ id: number; apiKey: string }> {
    const created = await admin(user).createAccount(credits);
    expect(created.status).toBe(201);
    return { id: created.body.id as number, apiKey: created.body.apiKey as string };
  }

  it('when an account is created with credits, then its key mints at once', async () => {
    expect(await mintStatus(await anAccount({ 1: 5 }))).toEqual([200, 200]);
  });

  it('when an account is created without credits, then its key mints nothing, until a top-up has answered', async () => {
    const account = await anAccount({});
    expect(await mintStatus(account)).toEqual([401, 401]);
    expect((await admin(user).credit(account.id, 7, 3)).status).toBe(200);
    expect(await mintStatus(account)).toEqual([200, 200]);
  });

  it('when the debit that empties the last pool has answered, then the very next issuance is 401, and the very next after a top-up is 200', async () => {
    const account = await anAccount({ 1: 3 });
    const token = (await seed(account.apiKey)).body.accessToken as string;
    expect((await debit(user, account.apiKey, 1, 2)).body).toMatchObject({ credits: 1 });
    expect(await mintStatus(account)).toEqual([200, 200]);

    const emptied = await debit(user, token, 24, 1);
    expect(emptied.status).toBe(200);
    expect(emptied.body).toMatchObject({ credits: 0 });
    expect(await mintStatus(account)).toEqual([401, 401]);
    // Reading the balance needs no credits: the earlier token still works there.
    expect((await request(user).get('/user-service/account-balance').set('Authorization', `Bearer ${token}`)).status).toBe(200);

    expect((await admin(user).credit(account.id, 24, 10)).body).toEqual({ productId: 24, credits: 10 });
    expect(await mintStatus(account)).toEqual([200, 200]);
  });

  it('when one pool of two is emptied, then issuance goes on; when the other is, then it stops', async () => {
    const account = await anAccount({ 1: 1, 14: 1 });
    expect((await debit(user, account.apiKey, 1, 1)).status).toBe(200);
    expect(await mintStatus(account)).toEqual([200, 200]);
    expect((await debit(user, account.apiKey, 101, 1)).status).toBe(200);
    expect(await mintStatus(account)).toEqual([401, 401]);
  });

  it('when an operator adjusts the last pool to 0, then issuance stops at once; a top-up of another pool allows it again', async () => {
    const account = await anAccount({ 1: 50 });
    expect((await admin(user).credit(account.id, 1, -80)).body).toEqual({ productId: 1, credits: 0 });
    expect(await mintStatus(account)).toEqual([401, 401]);
    expect((await admin(user).credit(account.id, 8, 1)).status).toBe(200);
    expect(await mintStatus(account)).toEqual([200, 200]);
  });

  it('when many debits race to empty the pool, then once the last of them has answered no token is minted', async () => {
    const account = await anAccount({ 1: 10 });
    const answers = await Promise.all(Array.from({ length: 25 }, () => debit(user, account.apiKey, 1, 1)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
    expect(await mintStatus(account)).toEqual([401, 401]);
  });

  describe('when Redis cannot be written', () => {
    afterEach(() => {
      writesFail = false;
    });

    it('then a top-up from 0 commits and answers 200, issuance stays refused while its grant cannot be written, and the grant is written once it can', async () => {
      const account = await anAccount({ 1: 0 });
      writesFail = true;
      // Opening access is written after the commit (docs/architecture.md, "Redis follows Postgres"):
      // the change is committed, its grant waits in access_grants_pending.
      const topUp = await admin(fragileUser).credit(account.id, 1, 100);
      expect(topUp.status).toBe(200);
      expect(await mintStatus(account)).toEqual([401, 401]);
      expect((await admin(user).balance(account.id)).body.balances[0]).toMatchObject({ product_id: 1, credits: 100 });
      writesFail = false;
      // The fragile service's repair sweeper (ACCESS_REPAIR_SWEEP_MS) writes it.
      await eventually(async () => ((await mintStatus(account)).every((status) => status === 200) ? true : undefined), 10_000, 'the grant');
    });

    it('then the debit that would empty the last pool answers 503 and debits nothing: issuance goes on', async () => {
      const account = await anAccount({ 1: 1 });
      writesFail = true;
      const refused = await debit(fragileUser, account.apiKey, 1, 1);
      writesFail = false;
      expect(refused.status).toBe(503);
      expect((await request(user).get('/user-service/account-balance').query({ apiKey: account.apiKey, productId: '1' })).body).toEqual({
        data: [{ product_id: 1, product: { id: 1, name: 'WHOIS API' }, credits: 1 }],
      });
      expect(await mintStatus(account)).toEqual([200, 200]);
    });

    it('then account creation answers 201 and its key works once its grant is written', async () => {
      const email = `${uniqueId('credits')}@example.test`;
      writesFail = true;
      const created = await request(fragileUser)
        .post('/admin/v1/accounts')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ email, credits: { 1: 5 } });
      expect(created.status).toBe(201);
      const account = { id: created.body.id as number, apiKey: created.body.apiKey as string };
      expect(await mintStatus(account)).toEqual([401, 401]);
      writesFail = false;
      await eventually(async () => ((await mintStatus(account)).every((status) => status === 200) ? true : undefined), 10_000, 'the grant');
    });
  });
});
