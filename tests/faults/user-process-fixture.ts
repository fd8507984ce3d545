/**
 * The access fault tests' world: a private database, the real Redis (a key prefix of its own) and
 * RabbitMQ, a real auth service in this process, and the user service as child processes started
 * with a pause point (TEST_PAUSE_AT, services/user/src/pause-point.ts), so a test can stop one at
 * an exact step, look at what the other services answer, then resume it, kill it or break it.
 */
import type pg from 'pg';
import type { Redis } from 'ioredis';
import { closeRedis, connectRedis, createRedisAccessStore, type AccessStore } from '@platform/credentials';
import { silentLogger, testServers, uniqueId, type ServiceProcess } from '@platform/testing';
import { pausedAt, startPlatform, startServiceOf, type Platform } from '@platform/testing/platform';
import { verifyLedgerAfterAll } from './ledger-check';

export const ADMIN_TOKEN = 'access-grants-test-admin-token-of-32-characters-or-more';
export const SERVICE_JWT_SECRET = 'access-grants-test-service-jwt-secret-0123456789';

export interface UserProcessFixture {
  /** Set in beforeAll. */
  db: { url: string };
  pool: pg.Pool;
  redis: Redis;
  access: AccessStore;
  /** The auth service, in this process. */
  auth: { url: string };
  prefix: string;
  /** A user service process on the fixture's stores, paused at `pauseAt` (`<point>[@<hit>]`) when given, with `env` on top. */
  startUser(pauseAt?: string, env?: Record<string, string>): Promise<ServiceProcess>;
  /** SIGKILL, and the process is seen to die of it. */
  kill(user: ServiceProcess): Promise<void>;
  /** Stops a process this fixture started (afterAll stops those left). */
  stop(user: ServiceProcess): Promise<void>;
  /** Resolves once the process says it is paused at `point` (it waits there until SIGUSR2). */
  pausedAt(user: ServiceProcess, point: string): Promise<unknown>;
  admin(user: ServiceProcess, pathname: string, body: unknown, method?: string): Promise<Response>;
  createAccount(user: ServiceProcess, credits: number): Promise<{ id: number; apiKey: string }>;
  /** The auth service's answer to a token request with this key: 200, or 401 (unknown key, or no credits). */
  issuance(apiKey: string): Promise<number>;
  /** Pool 1's credits as Postgres has them. */
  credits(accountId: number): Promise<number>;
}

/**
 * Registers the fixture's beforeAll and afterAll. `ports`: the range the user processes listen
 * on, one no other test uses, so a ready check never reaches another process.
 */
export function useUserProcessFixture(name: string, ports: { from: number; to: number }): UserProcessFixture {
  const running = new Set<ServiceProcess>();
  const fixture = {} as UserProcessFixture;
  /** The database, key prefix and exchange of the file (removed after it), and the auth service. */
  let platform: Platform | undefined;

  fixture.startUser = async (pauseAt, extra = {}) => {
    const env = {
      DATABASE_URL: fixture.db.url,
      REDIS_URL: testServers.redisUrl,
      AMQP_URL: testServers.amqpUrl,
      BALANCE_EXCHANGE: (platform as Platform).exchange,
      REDIS_KEY_PREFIX: fixture.prefix,
      ADMIN_TOKEN,
      SERVICE_JWT_SECRET,
      ...extra,
    };
    const user = await startServiceOf('user', { env, ports, ...(pauseAt === undefined ? {} : { pauseAt }) });
    running.add(user);
    return user;
  };
  fixture.kill = async (user) => {
    user.child.kill('SIGKILL');
    expect(await user.exited).toBe('SIGKILL');
    running.delete(user);
  };
  fixture.stop = async (user) => {
    await user.stop(1000);
    running.delete(user);
  };
  fixture.pausedAt = pausedAt;
  fixture.admin = (user, pathname, body, method = 'POST') =>
    fetch(`${user.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  fixture.createAccount = async (user, credits) => {
    const res = await fixture.admin(user, '/admin/v1/accounts', { email: `${uniqueId(name)}@example.test`, credits: { 1: credits } });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: number; apiKey: string };
  };
  fixture.issuance = async (apiKey) => {
    const res = await fetch(`${fixture.auth.url}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Bearer ${Buffer.from(apiKey).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ grantType: 'access_token' }),
    });
    await res.body?.cancel();
    return res.status;
  };
  fixture.credits = async (accountId) =>
    Number(
      (
        await fixture.pool.query<{ credits: string }>('SELECT credits FROM pool_balances WHERE account_id = $1 AND pool_id = 1', [
          accountId,
        ])
      ).rows[0]?.credits,
    );

  beforeAll(async () => {
    // No service yet: the first user process migrates the database; the auth service starts on it after.
    platform = await startPlatform({ name, services: [], env: { ADMIN_TOKEN, SERVICE_JWT_SECRET, AUTH_URL: 'https://auth.issuer.test' } });
    fixture.db = { url: platform.databaseUrl };
    fixture.prefix = platform.prefix;
    fixture.pool = platform.pool;
    fixture.redis = await connectRedis(testServers.redisUrl, silentLogger());
    fixture.access = createRedisAccessStore(fixture.redis, { keyPrefix: fixture.prefix });
    // The first start migrates the database and reconciles this prefix (then marked reconciled).
    await fixture.stop(await fixture.startUser());
    fixture.auth = { url: await platform.another('auth', {}) };
  }, 120_000);

  // Before the afterAll below drops the database: whatever the file's faults did, the ledger is exact.
  verifyLedgerAfterAll(() => fixture.db?.url);

  afterAll(async () => {
    for (const user of running) await user.stop(1000);
    if (fixture.redis) await closeRedis(fixture.redis);
    // The auth service, the pool, the keys under the prefix, the exchange and the database.
    await platform?.stop();
  });

  return fixture;
}
