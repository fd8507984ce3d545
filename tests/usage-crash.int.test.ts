/**
 * A 200 from the usage API means the debit is committed (CONTRACT §9): the user service runs as
 * its own process on the real Postgres, Redis and RabbitMQ, takes a steady stream of debits
 * (batches always forming or committing), and is killed with SIGKILL. After a restart every
 * debit that was answered 200 is in the ledger once, no debit is applied twice, and the calls
 * that got no answer can be retried with their requestId without a double debit. The kill is not
 * left to timing: it comes while a batch is paused after its COMMIT and before its answers
 * (TEST_PAUSE_AT), so some debits are known to be committed and unanswered.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { closeRedis, connectRedis, createRedisAccessStore, signServiceJwt, type AccessStore } from '@platform/credentials';
import type { Redis } from 'ioredis';
import { createPool } from '@platform/db';
import { anAccount, eventually, silentLogger, testServers, type ServiceProcess } from '@platform/testing';
import { startPlatformResources, startServiceOf, type PlatformResources } from '@platform/testing/platform';

const SERVICE_JWT_SECRET = 'usage-crash-test-service-jwt-secret-0123456789';
const CREDITS = 1_000_000;
const WORKERS = 24;
/** Ports of this file's processes: a range no other test uses, so the ready check reaches this process. */
const PORTS = { from: 21_200, to: 21_249 };
/** The batch killed after its COMMIT and before its answers (services/user/src/pause-point.ts). */
const KILLED_BATCH = 15;

type Sent = { requestId: string; status: number | 'no answer' | 'not JSON'; credits?: number };

describe('usage API: SIGKILL in the middle of batches', () => {
  /** The database, key prefix and exchange of the file (removed after it). */
  let resources: PlatformResources;
  let pool: pg.Pool;
  let redis: Redis;
  /** The account's key record, written as the user service writes it (the service reads keys from Redis). */
  let access: AccessStore;
  let user: ServiceProcess | undefined;

  const start = (pauseAt?: string): Promise<ServiceProcess> =>
    startServiceOf('user', {
      env: {
        DATABASE_URL: resources.databaseUrl,
        REDIS_URL: testServers.redisUrl,
        AMQP_URL: testServers.amqpUrl,
        BALANCE_EXCHANGE: resources.exchange,
        REDIS_KEY_PREFIX: resources.prefix,
        ADMIN_TOKEN: 'usage-crash-test-admin-token-0123456789',
        SERVICE_JWT_SECRET,
        // Every batch waits a little for company: at any moment one is forming or committing.
        USAGE_BATCH_MAX_WAIT_MS: '5',
      },
      ports: PORTS,
      ...(pauseAt === undefined ? {} : { pauseAt }),
    });

  beforeAll(async () => {
    resources = await startPlatformResources({ name: 'usage_crash' });
    pool = createPool({ connectionString: resources.databaseUrl, logger: silentLogger(), max: 2 });
    redis = await connectRedis(testServers.redisUrl, silentLogger());
    access = createRedisAccessStore(redis, { keyPrefix: resources.prefix });
  });

  afterAll(async () => {
    if (user) await user.stop();
    await pool?.end();
    if (redis) await closeRedis(redis);
    // The keys under the prefix, the exchange and the database.
    await resources?.stop();
  });

  it('when the process is killed under load and restarted, then every 200 is in the ledger once and retries never debit twice', async () => {
    // Killed where a 200 is at stake: a batch has committed and its debits are not answered yet.
    const first = await start(`usage-after-commit@${KILLED_BATCH}`);
    user = first;
    const account = await anAccount(pool, { credits: { 1: CREDITS }, access });
    const jwt = signServiceJwt({ issuer: 'crash-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 });
    const call = async (url: string, requestId: string): Promise<Sent> => {
      let text: string;
      let status: number;
      try {
        const res = await fetch(`${url}/internal/v1/usage`, {
          method: 'POST',
          headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
          body: JSON.stringify({ credential: account.apiKey, productId: 1, units: 1, requestId }),
        });
        status = res.status;
        text = await res.text();
      } catch {
        // The connection failed or closed before a whole answer: only this counts as no answer.
        return { requestId, status: 'no answer' };
      }
      let body: { credits?: number };
      try {
        body = JSON.parse(text) as { credits?: number };
      } catch {
        return { requestId, status: 'not JSON' };
      }
      return { requestId, status, ...(body.credits === undefined ? {} : { credits: body.credits }) };
    };

    const sent: Sent[] = [];
    let killed = false;
    const worker = async (): Promise<void> => {
      while (!killed) sent.push(await call(first.url, randomUUID()));
    };
    const workers = Array.from({ length: WORKERS }, worker);
    await eventually(() => (first.output().includes('PAUSED AT usage-after-commit') ? true : undefined), 60_000, `batch ${KILLED_BATCH}`);
    first.child.kill('SIGKILL');
    killed = true;
    await first.exited;
    await Promise.all(workers);

    const answered = sent.filter((entry) => entry.status === 200);
    const unanswered = sent.filter((entry) => entry.status === 'no answer');
    expect(sent.filter((entry) => entry.status !== 200 && entry.status !== 'no answer')).toEqual([]);
    // Killed with requests in flight, not between two of them.
    expect(unanswered.length).toBeGreaterThan(0);

    const ledger = async (): Promise<Map<string, number>> => {
      const rows = await pool.query<{ request_id: string; n: number }>(
        "SELECT request_id, count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND cause = 'usage' GROUP BY request_id",
        [account.id],
      );
      return new Map(rows.rows.map((row) => [row.request_id, row.n]));
    };
    const poolCredits = async (): Promise<number> =>
      Number((await pool.query('SELECT credits FROM pool_balances WHERE account_id = $1 AND pool_id = 1', [account.id])).rows[0].credits);

    const afterCrash = await ledger();
    // The paused batch: committed, never answered.
    const committedUnanswered = unanswered.filter((entry) => afterCrash.has(entry.requestId));
    expect(committedUnanswered.length).toBeGreaterThan(0);
    for (const entry of answered) expect(afterCrash.get(entry.requestId)).toBe(1);
    expect([...afterCrash.values()].every((count) => count === 1)).toBe(true);
    expect(CREDITS - (await poolCredits())).toBe(afterCrash.size);

    // Restart; the calls that got no answer are retried with the same requestIds, the answered ones replayed.
    const restarted = await start();
    user = restarted;
    const retried = await Promise.all(unanswered.map((entry) => call(restarted.url, entry.requestId)));
    expect(retried.map((entry) => entry.status)).toEqual(unanswered.map(() => 200));
    // A committed debit's retry is a replay: it answers what its first answer would have said.
    const kept = await pool.query<{ request_id: string; credits_after: string }>(
      'SELECT request_id, credits_after FROM credit_ledger WHERE request_id = ANY($1::text[])',
      [committedUnanswered.map((entry) => entry.requestId)],
    );
    const keptCredits = new Map(kept.rows.map((row) => [row.request_id, Number(row.credits_after)]));
    for (const entry of retried.filter((candidate) => keptCredits.has(candidate.requestId)))
      expect(entry.credits).toBe(keptCredits.get(entry.requestId));
    const replayed = await Promise.all(answered.slice(0, 50).map((entry) => call(restarted.url, entry.requestId)));
    expect(replayed.map((entry) => entry.credits)).toEqual(answered.slice(0, 50).map((entry) => entry.credits));
    const final = await ledger();
    expect([...final.values()].every((count) => count === 1)).toBe(true);
    expect(final.size).toBe(answered.length + unanswered.length);
    expect(CREDITS - (await poolCredits())).toBe(final.size);
  }, 180_000);
});
