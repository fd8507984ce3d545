/**
 * Redis data loss cannot resurrect anything (CONTRACT §3): a real restart of a Redis server of
 * this test's own from an older snapshot. 1. SAVE and copy the RDB; 2. rotate a key (and empty
 * another account's pools); 3. SHUTDOWN NOSAVE; 4. start Redis from the old RDB. The services
 * notice the new run_id, answer 503 until they have reconciled from Postgres, and then: the old
 * token is refused by every service, the old key mints nothing, the emptied account mints
 * nothing, and the new key works within seconds. At no moment does anything refused answer 200.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { signServiceJwt } from '@platform/credentials';
import { eventually, startPrivateRedis, type PrivateRedis } from '@platform/testing';
import { startPlatform, type Platform } from '@platform/testing/platform';
import { seedToken } from './support/seed-token';

const ADMIN_TOKEN = 'restore-test-admin-token-0123456789';
const SERVICE_JWT_SECRET = 'restore-test-service-jwt-secret-0123456789';

describe('a Redis restored from an older snapshot', () => {
  let platform: Platform;
  let redis: PrivateRedis;
  let user: string;
  let auth: string;
  let categorization: string;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    platform = await startPlatform({
      name: 'redis-restore',
      services: ['user', 'categorization', 'auth'],
      bus: 'in-process',
      env: { REDIS_URL: redis.url, ADMIN_TOKEN, SERVICE_JWT_SECRET },
      serviceEnv: { auth: { AUTH_URL: 'http://auth.test' } },
    });
    [user, categorization, auth] = [platform.url('user'), platform.url('categorization'), platform.url('auth')];
  }, 60_000);

  afterAll(async () => {
    await platform?.stop();
    await redis.close();
  });

  const createAccount = async (credits: Record<string, number>): Promise<{ id: number; apiKey: string }> => {
    const created = await request(user)
      .post('/admin/v1/accounts')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ email: `restore-${randomUUID()}@example.test`, credits });
    expect(created.status).toBe(201);
    return { id: created.body.id as number, apiKey: created.body.apiKey as string };
  };
  const mint = (apiKey: string) => seedToken(auth, apiKey);
  const debit = (credential: string, units: number) =>
    request(user)
      .post('/internal/v1/usage')
      .set(
        'Authorization',
        `Bearer ${signServiceJwt({ issuer: 'restore-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 })}`,
      )
      .send({ credential, productId: 1, units, requestId: randomUUID() });

  /** How each service answers the token now: statuses, and the introspection's `active`. */
  async function seenBy(token: string): Promise<{ user: number; categorization: number; introspection: number | boolean }> {
    const [balance, categories, introspection] = await Promise.all([
      request(user).get('/user-service/account-balance').set('Authorization', `Bearer ${token}`),
      request(categorization).get('/api/v2/categories').query({ apiKey: token }),
      request(auth).post('/oauth/introspect').set('Authorization', `Bearer ${ADMIN_TOKEN}`).type('form').send({ token }),
    ]);
    return {
      user: balance.status,
      categorization: categories.status,
      introspection: introspection.status === 200 ? (introspection.body.active as boolean) : introspection.status,
    };
  }

  it('then the old token is refused by every service, the old key and the emptied account mint nothing, and the new key works within seconds', async () => {
    const rotated = await createAccount({ 1: 100 });
    const emptied = await createAccount({ 1: 2 });
    const oldToken = (await mint(rotated.apiKey)).body.accessToken as string;
    expect(await seenBy(oldToken)).toEqual({ user: 200, categorization: 200, introspection: true });
    expect((await mint(emptied.apiKey)).status).toBe(200);

    // 1. The snapshot: the old key active, its token live, the other account with credits.
    await redis.snapshot();

    // 2. After it: a rotation and a debit to 0, both answered.
    const rotation = await request(user).get('/user-service/api-key/generate').query({ currentApiKey: rotated.apiKey });
    expect(rotation.status).toBe(200);
    const newKey = rotation.body.apiKey as string;
    expect((await debit(emptied.apiKey, 2)).body).toMatchObject({ credits: 0 });
    expect(await seenBy(oldToken)).toEqual({ user: 401, categorization: 401, introspection: false });

    // 3. and 4. The server goes away without saving and comes back from the old snapshot.
    await redis.stopWithoutSaving();
    await redis.restoreSnapshot();

    // From the restart until all is settled, nothing that was refused before answers 200.
    const refusedAnswers: unknown[] = [];
    const settled = await eventually(
      async () => {
        const seen = await seenBy(oldToken);
        const oldKey = (await mint(rotated.apiKey)).status;
        const zero = (await mint(emptied.apiKey)).status;
        if (seen.user === 200 || seen.categorization === 200 || seen.introspection === true || oldKey === 200 || zero === 200) {
          refusedAnswers.push({ seen, oldKey, zero });
        }
        const fresh = (await mint(newKey)).status;
        return fresh === 200 && !Object.values(seen).includes(503) ? { seen, oldKey, zero } : undefined;
      },
      15_000,
      'the services to reconcile and the new key to work',
    );
    expect(refusedAnswers).toEqual([]);
    expect(settled).toEqual({ seen: { user: 401, categorization: 401, introspection: false }, oldKey: 401, zero: 401 });
    // And the accounts that were fine before the loss are fine after it.
    expect((await request(user).get('/user-service/account-balance').query({ apiKey: newKey })).status).toBe(200);
  });
});
