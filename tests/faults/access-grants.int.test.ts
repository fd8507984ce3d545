/**
 * Redis never grants what Postgres has not committed (CONTRACT §3, docs/architecture.md "Redis
 * follows Postgres"). The user service runs as its own process on the real Postgres, Redis and
 * RabbitMQ, with a pause point (TEST_PAUSE_AT, services/user/src/pause-point.ts) at the exact step
 * each fault needs: the test waits for the process to say it is paused there, then kills it with
 * SIGKILL or breaks its COMMIT, so every fault hits where its name says. Issuance is asked of a
 * real auth service on the same Redis; Redis itself is never restarted (its run_id is checked).
 */
import { randomUUID } from 'node:crypto';
import { hashSecret, signServiceJwt } from '@platform/credentials';
import { eventually } from '@platform/testing';
import { SERVICE_JWT_SECRET, useUserProcessFixture } from './user-process-fixture';

describe('Redis never grants what Postgres has not committed (user service paused at a step, then killed or failed)', () => {
  const fx = useUserProcessFixture('access-grants', { from: 21_100, to: 21_199 });
  const { startUser, kill, pausedAt, admin, createAccount, issuance, credits } = fx;

  const pendingGrants = async (accountId: number): Promise<number> =>
    (await fx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM access_grants_pending WHERE account_id = $1', [accountId])).rows[0]
      ?.n ?? 0;
  const runId = async (): Promise<string> => /run_id:([0-9a-f]+)/.exec(await fx.redis.info('server'))?.[1] ?? '';

  it('when a top-up from 0 is paused before its COMMIT and the COMMIT then fails, then issuance stays 401 throughout and after', async () => {
    // Hit 1 is the account's creation; hit 2 the top-up.
    const user = await startUser('user-before-commit@2');
    try {
      const account = await createAccount(user, 0);
      expect(await issuance(account.apiKey)).toBe(401);
      const topUp = admin(user, `/admin/v1/accounts/${account.id}/credits`, { productId: 1, amount: 100 });
      await pausedAt(user, 'user-before-commit');
      // Inside the transaction, its SQL done: Postgres has not committed, so Redis must not grant.
      expect(await credits(account.id)).toBe(0);
      expect(await issuance(account.apiKey)).toBe(401);
      // The COMMIT fails: the paused transaction's connection is terminated (exactly one is waiting).
      const terminated = await fx.pool.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'",
      );
      expect(terminated.rowCount).toBe(1);
      user.child.kill('SIGUSR2');
      expect((await topUp).status).toBe(503);
      expect(user.output()).toContain('RESUMED AT user-before-commit');
      expect(await credits(account.id)).toBe(0);
      expect(await pendingGrants(account.id)).toBe(0);
      expect(await issuance(account.apiKey)).toBe(401);
      // The same top-up again commits: issuance is granted from its answer on.
      expect((await admin(user, `/admin/v1/accounts/${account.id}/credits`, { productId: 1, amount: 100 })).status).toBe(200);
      expect(await issuance(account.apiKey)).toBe(200);
    } finally {
      await fx.stop(user);
    }
  }, 120_000);

  it.each([
    ['user-before-commit', 0, 401],
    ['grant-after-commit', 100, 200],
  ])(
    'when the process is killed at %s of a top-up from 0 and restarted, then issuance matches Postgres within seconds, Redis untouched',
    async (point, committedCredits, expected) => {
      const user = await startUser(`${point}@2`);
      const account = await createAccount(user, 0);
      const redisBefore = await runId();
      const topUp = admin(user, `/admin/v1/accounts/${account.id}/credits`, { productId: 1, amount: 100 }).then(
        (res) => res.status,
        () => 'no answer',
      );
      await pausedAt(user, point);
      // Killed where intended: before the COMMIT nothing is committed; after it, the credits and
      // the pending grant are, and Redis has not granted yet.
      expect(await credits(account.id)).toBe(committedCredits);
      expect(await pendingGrants(account.id)).toBe(committedCredits > 0 ? 1 : 0);
      // Asserted last, so that a failure here still shows whether the restart converges.
      const whilePaused = await issuance(account.apiKey);
      await kill(user);
      expect(await topUp).toBe('no answer');

      const restarted = await startUser();
      try {
        const started = Date.now();
        // The repair sweep grants in Redis, then deletes the pending row: issuance can turn before the row goes.
        await eventually(
          async () => ((await issuance(account.apiKey)) === expected && (await pendingGrants(account.id)) === 0 ? true : undefined),
          5000,
          'issuance as Postgres, and no pending grant left',
        );
        expect(Date.now() - started).toBeLessThan(5000);
        expect(await runId()).toBe(redisBefore);
        expect(await credits(account.id)).toBe(committedCredits);
        expect(whilePaused).toBe(401);
      } finally {
        await fx.stop(restarted);
      }
    },
    120_000,
  );

  it('when a debit is committed and the process is killed before it answers, then it is in the ledger once and its replay answers what it would have', async () => {
    const user = await startUser('usage-after-commit@1');
    const account = await createAccount(user, 50);
    const requestId = randomUUID();
    const jwt = signServiceJwt({ issuer: 'grants-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 });
    const debit = (url: string): Promise<Response> =>
      fetch(`${url}/internal/v1/usage`, {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
        body: JSON.stringify({ credential: account.apiKey, productId: 1, units: 7, requestId }),
      });
    const first = debit(user.url).then(
      (res) => res.status,
      () => 'no answer',
    );
    await pausedAt(user, 'usage-after-commit');
    const ledger = await fx.pool.query<{ credits_after: string }>('SELECT credits_after FROM credit_ledger WHERE request_id = $1', [
      requestId,
    ]);
    expect(ledger.rows.map((row) => Number(row.credits_after))).toEqual([43]);
    await kill(user);
    expect(await first).toBe('no answer');

    const restarted = await startUser();
    try {
      const replay = await debit(restarted.url);
      expect(replay.status).toBe(200);
      expect(await replay.json()).toEqual({ accountId: account.id, productId: 1, credits: 43 });
      const after = await fx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM credit_ledger WHERE request_id = $1', [requestId]);
      expect(after.rows[0]?.n).toBe(1);
      expect(await credits(account.id)).toBe(43);
    } finally {
      await fx.stop(restarted);
    }
  }, 120_000);

  it.each(['user-before-commit@40', 'grant-after-commit@30'])(
    'when the process is killed (at %s) during mixed top-ups, rotations and debits of many accounts, then after a restart every key and every issuance matches Postgres',
    async (pauseAt) => {
      const user = await startUser(pauseAt);
      const accounts = await Promise.all(Array.from({ length: 8 }, (_, index) => createAccount(user, index % 2 === 0 ? 0 : 5)));
      const redisBefore = await runId();
      const keys = new Map(accounts.map((account) => [account.id, account.apiKey]));
      const jwt = signServiceJwt({ issuer: 'grants-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 });
      const answers: Array<number | 'no answer'> = [];
      let stopped = false;
      const step = async (accountId: number, round: number): Promise<Response> => {
        const apiKey = keys.get(accountId) as string;
        switch (round % 4) {
          case 0:
            return admin(user, `/admin/v1/accounts/${accountId}/credits`, { productId: 1, amount: 3 });
          case 1:
            return fetch(`${user.url}/internal/v1/usage`, {
              method: 'POST',
              headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
              body: JSON.stringify({ credential: apiKey, productId: 1, units: 2, requestId: randomUUID() }),
            });
          case 2: {
            const res = await fetch(`${user.url}/user-service/api-key/generate?currentApiKey=${encodeURIComponent(apiKey)}`);
            if (res.status === 200) keys.set(accountId, ((await res.clone().json()) as { apiKey: string }).apiKey);
            return res;
          }
          default:
            return admin(user, `/admin/v1/accounts/${accountId}/credits`, { productId: 1, amount: -1_000_000 });
        }
      };
      const worker = async (accountId: number, offset: number): Promise<void> => {
        for (let round = offset; !stopped; round += 1) {
          try {
            const res = await step(accountId, round);
            await res.body?.cancel();
            answers.push(res.status);
          } catch {
            answers.push('no answer');
            return;
          }
        }
      };
      const workers = accounts.map((account, index) => worker(account.id, index));
      await pausedAt(user, pauseAt.split('@')[0] as string);
      await kill(user);
      stopped = true;
      await Promise.all(workers);
      // Killed with requests in flight (at least the paused one), after some had answered.
      expect(answers.filter((answer) => answer === 'no answer').length).toBeGreaterThan(0);
      expect(answers.filter((answer) => answer === 200).length).toBeGreaterThan(0);

      const restarted = await startUser();
      try {
        // The restarted service's repair sweep: the pending grants and the repair intents the killed one left.
        await eventually(
          async () => {
            const rows = await fx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM access_grants_pending');
            return rows.rows[0]?.n === 0 && (await fx.redis.scard(`${fx.prefix}access:repair`)) === 0 ? true : undefined;
          },
          5000,
          'the pending grants applied and the repair intents settled',
        );
        await expectRedisAsPostgres(
          accounts.map((account) => account.id),
          keys,
        );
        expect(await runId()).toBe(redisBefore);
      } finally {
        await fx.stop(restarted);
      }
    },
    120_000,
  );

  /** Every key of these accounts: active ones valid under the generation and credits Postgres has, the others gone; issuance as credits say. */
  async function expectRedisAsPostgres(accountIds: number[], keys: Map<number, string>): Promise<void> {
    const rows = await fx.pool.query<{ account_id: number; key_hash: string; active: boolean; key_generation: number; credited: boolean }>(
      `SELECT k.account_id, k.key_hash, k.active, a.key_generation,
              EXISTS (SELECT 1 FROM pool_balances b WHERE b.account_id = k.account_id AND b.credits > 0) AS credited
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.account_id = ANY($1::int[])`,
      [accountIds],
    );
    const seen = await Promise.all(rows.rows.map(async (row) => ({ row, found: await fx.access.findKey(row.key_hash) })));
    expect(seen.map(({ found }) => found)).toEqual(
      seen.map(({ row }) =>
        row.active ? { accountId: Number(row.account_id), generation: Number(row.key_generation), hasCredits: row.credited } : undefined,
      ),
    );
    for (const [accountId, apiKey] of keys) {
      const row = rows.rows.find((candidate) => candidate.key_hash === hashSecret(apiKey));
      // The key the test last saw may be one a killed rotation replaced without answering: then it is inactive.
      expect(await issuance(apiKey)).toBe(row?.active && row.credited ? 200 : 401);
      expect(accountIds).toContain(accountId);
    }
  }
});
