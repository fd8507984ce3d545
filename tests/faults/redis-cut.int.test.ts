/**
 * Redis cut under load, with the four services as one child process (`pnpm start` on real
 * Postgres and Redis) reaching Redis through a TCP proxy: issuance and verification answer 503,
 * never 500; the process survives; service resumes within 5 s of Redis's return; a key
 * rotation attempted during the cut answers 503 and changes nothing.
 */
import type pg from 'pg';
import { closeRedis, connectRedis } from '@platform/credentials';
import { createPool } from '@platform/db';
import {
  createPrivateDatabase,
  deleteKeys,
  eventually,
  silentLogger,
  startTcpProxy,
  testServers,
  uniqueId,
  type PrivateDatabase,
  type TcpProxy,
} from '@platform/testing';
import { startPlatform, type EmbeddedPlatform } from '@platform/testing/platform';
import { errorMessage } from '@platform/runtime';
import { verifyLedgerAfterAll } from './ledger-check';

const ADMIN_TOKEN = `redis-cut-admin-token-${uniqueId()}-0123456789`;

type Status = number | string;

async function status(url: string, init: RequestInit = {}): Promise<Status> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    return `no answer: ${errorMessage(error)}`;
  }
}

describe('Redis cut during load', () => {
  let db: PrivateDatabase;
  let proxy: TcpProxy;
  let platform: EmbeddedPlatform;
  let pool: pg.Pool;
  let redis: Awaited<ReturnType<typeof connectRedis>>;
  const prefix = `test:rediscut:${uniqueId()}:`;
  let urls: { auth: string; user: string };

  beforeAll(async () => {
    db = await createPrivateDatabase('rediscut');
    proxy = await startTcpProxy(Number(new URL(testServers.redisUrl).port || 6379));
    platform = await startPlatform({
      mode: 'embedded',
      env: {
        DATABASE_URL: db.url,
        REDIS_URL: proxy.url(testServers.redisUrl),
        REDIS_KEY_PREFIX: prefix,
        ADMIN_TOKEN,
        SERVICE_JWT_SECRET: `redis-cut-service-jwt-secret-${uniqueId()}`,
        AUTH_PORT: '0',
        USER_PORT: '0',
        CATEGORIZATION_PORT: '0',
        NOTIFIER_PORT: '0',
        AUTH_FAILURES_PER_IP: '100000',
        TOKEN_RATE_PER_ACCOUNT: '100000',
        LOG_LEVEL: 'error',
        DATA_DIR: `/tmp/${uniqueId('aap-rediscut-')}`,
      },
    });
    urls = { auth: platform.urls.auth, user: platform.urls.user };
    pool = createPool({ connectionString: db.url, logger: silentLogger(), max: 2 });
    redis = await connectRedis(testServers.redisUrl, silentLogger());
  }, 120_000);

  // Before the afterAll below drops the database: whatever the faults did, the ledger is exact.
  verifyLedgerAfterAll(() => db?.url);

  afterAll(async () => {
    await platform?.stop();
    await pool?.end();
    await deleteKeys(redis, prefix);
    await closeRedis(redis);
    await proxy?.close();
    await db?.drop();
  });

  const issue = (apiKey: string): Promise<Response> =>
    fetch(`${urls.auth}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Bearer ${Buffer.from(apiKey).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ grantType: 'access_token' }),
    });
  const balance = (token: string): Promise<Status> =>
    status(`${urls.user}/user-service/account-balance`, { headers: { authorization: `Bearer ${token}` } });
  const introspect = (token: string): Promise<Status> =>
    status(`${urls.auth}/oauth/introspect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${token}`,
    });
  const keyState = async (accountId: number) =>
    (
      await pool.query<{ generation: number; keys: string }>(
        `SELECT a.key_generation AS generation, string_agg(k.key_hash, ',' ORDER BY k.key_hash) AS keys
           FROM accounts a JOIN api_keys k ON k.account_id = a.id AND k.active WHERE a.id = $1 GROUP BY a.key_generation`,
        [accountId],
      )
    ).rows[0];

  test('then issuance and verification answer 503 (never 500), the process lives, service resumes within 5 s, and a rotation during the cut answers 503 and changes nothing', async () => {
    const created = await fetch(`${urls.user}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `${uniqueId('rediscut')}@example.test`, credits: { 1: 1000 } }),
    });
    const { id: accountId, apiKey } = (await created.json()) as { id: number; apiKey: string };
    const token = ((await (await issue(apiKey)).json()) as { accessToken: string }).accessToken;
    expect(await balance(token)).toBe(200);
    const before = await keyState(accountId);

    const seen: Status[] = [];
    let loading = true;
    const loop = async (call: () => Promise<Status>): Promise<void> => {
      while (loading) seen.push(await call());
    };
    const issueStatus = async (): Promise<Status> => {
      try {
        const response = await issue(apiKey);
        await response.arrayBuffer();
        return response.status;
      } catch (error) {
        return `no answer: ${String(error)}`;
      }
    };
    const load = [loop(issueStatus), loop(issueStatus), loop(() => balance(token)), loop(() => introspect(token))];
    await eventually(() => (seen.length >= 20 ? true : undefined));

    proxy.cut();
    await eventually(async () => ((await balance(token)) === 503 ? true : undefined), 10_000, 'verification to answer 503');
    const rotation = await status(`${urls.user}/user-service/api-key/generate?currentApiKey=${apiKey}`);
    await new Promise((resolve) => setTimeout(resolve, 2000)); // the load keeps hitting the cut
    const duringCut = seen.length;

    proxy.restore();
    const restored = Date.now();
    await eventually(
      async () => ((await issueStatus()) === 200 && (await balance(token)) === 200 && (await introspect(token)) === 200 ? true : undefined),
      15_000,
      'issuance and verification after Redis returned',
    );
    const resumedAfterMs = Date.now() - restored;
    loading = false;
    await Promise.all(load);

    expect(rotation).toBe(503);
    expect(seen.slice(0, duringCut)).toContain(503);
    expect([...new Set(seen)].filter((answer) => answer !== 200 && answer !== 503)).toEqual([]);
    expect(resumedAfterMs).toBeLessThan(5000);
    expect(platform.alive()).toBe(true);
    expect(platform.output()).not.toMatch(/uncaught|unhandled/i);

    // The rotation that answered 503 changed nothing: same key, same generation, old token and key still work.
    expect(await keyState(accountId)).toEqual(before);
    expect(await balance(token)).toBe(200);
    expect((await issue(apiKey)).status).toBe(200);
  }, 60_000);
});
