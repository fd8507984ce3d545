/**
 * Group commit of usage debits (CONTRACT §5, §9): races on one pool, two replicas on one
 * database, replays in flight, the closing write inside a batch's transaction, the events of a batch. The file has a database
 * of its own so that its counts and its expiry sweeps see nothing of other files.
 */
import { randomUUID } from 'node:crypto';
import { closeRedis, connectRedis, createRedisAccessStore, hashSecret, type AccessStore } from '@platform/credentials';
import { createPrivateDatabase, silentLogger, testServers, uniqueId, type PrivateDatabase } from '@platform/testing';
import { startHarness, testConfig, type Harness } from './harness';
import { postUsage, usageBody } from './usage-calls';

let db: PrivateDatabase;
let a: Harness;
let b: Harness;
/** Waits up to 1 s per batch, so that concurrent requests land in one batch; its access store is watched (`closing`). */
let slow: Harness;
let redis: Awaited<ReturnType<typeof connectRedis>>;

/**
 * What the slow service's closing writes (a pool's credit bit off, CONTRACT §3) saw: the usage
 * ledger rows of the account visible on another connection at that moment; `failing`: they fail.
 */
const closing = { failing: false, seen: new Map<string, number>() };
function watchedStore(real: AccessStore, pool: () => Harness['pool']): AccessStore {
  return {
    ...real,
    async setPoolCredit(keyHashes, poolId, credited) {
      const [keyHash] = keyHashes;
      if (!credited && keyHash !== undefined) {
        const visible = await pool().query(
          `SELECT count(*)::int AS n FROM credit_ledger l JOIN api_keys k ON k.account_id = l.account_id
            WHERE k.key_hash = $1 AND l.cause = 'usage'`,
          [keyHash],
        );
        closing.seen.set(keyHash, visible.rows[0].n as number);
      }
      if (closing.failing) throw new Error('Connection is closed.');
      return real.setPoolCredit(keyHashes, poolId, credited);
    },
  };
}

beforeAll(async () => {
  db = await createPrivateDatabase('usage_batching');
  // Account ids of a private database repeat those of others: Redis keys of their own.
  const shared = { DATABASE_URL: db.url, REDIS_KEY_PREFIX: `${uniqueId('test-usage-batching:')}:` };
  a = await startHarness({ config: testConfig(shared) });
  b = await startHarness({ config: testConfig(shared) });
  redis = await connectRedis(testServers.redisUrl, silentLogger());
  const access = watchedStore(createRedisAccessStore(redis, { keyPrefix: shared.REDIS_KEY_PREFIX }), () => a.pool);
  slow = await startHarness({
    config: testConfig({ ...shared, USAGE_BATCH_MAX_WAIT_MS: '1000' }),
    given: { redis: { access, client: redis } },
  });
});

afterAll(async () => {
  await slow?.stop();
  await b?.stop();
  await a?.stop();
  if (redis) await closeRedis(redis);
  await db?.drop();
});

async function credits(accountId: number): Promise<number> {
  const result = await a.pool.query('SELECT credits FROM pool_balances WHERE account_id = $1 AND pool_id = 1', [accountId]);
  return Number(result.rows[0]?.credits);
}

async function usageRows(accountId: number): Promise<{ ledger: number; answers: number }> {
  const result = await a.pool.query(
    `SELECT (SELECT count(*)::int FROM credit_ledger WHERE account_id = $1 AND cause = 'usage') AS ledger,
            (SELECT count(*)::int FROM usage_requests WHERE account_id = $1) AS answers`,
    [accountId],
  );
  return result.rows[0] as { ledger: number; answers: number };
}

const statusCounts = (statuses: number[]): Record<number, number> =>
  statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

describe('races on one pool', () => {
  it('when 200 debits of 1 race for 100 credits, then exactly 100 succeed, 100 get 403, and the pool ends at 0', async () => {
    const account = await a.account({ 1: 100 });
    const answers = await Promise.all(Array.from({ length: 200 }, () => postUsage(a.http, usageBody(account.apiKey))));
    expect(statusCounts(answers.map((res) => res.status))).toEqual({ 200: 100, 403: 100 });
    expect(await credits(account.id)).toBe(0);
    expect(await usageRows(account.id)).toEqual({ ledger: 100, answers: 100 });
    const left = answers.filter((res) => res.status === 200).map((res) => res.body.credits as number);
    expect(left.sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, index) => index));
  });

  it('when two replicas share the race, then still exactly 100 succeed: the row lock is the only coordination', async () => {
    const account = await a.account({ 1: 100 });
    const token = await a.token(account);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        postUsage((index % 2 === 0 ? a : b).http, usageBody(index % 3 === 0 ? token : account.apiKey)),
      ),
    );
    expect(statusCounts(answers.map((res) => res.status))).toEqual({ 200: 100, 403: 100 });
    expect(await credits(account.id)).toBe(0);
    expect(await usageRows(account.id)).toEqual({ ledger: 100, answers: 100 });
  });
});

describe('replays in flight', () => {
  it('when one request is sent 20 times to each of two replicas at once, then every copy gets the same 200 and the pool is debited once', async () => {
    const account = await a.account({ 1: 50 });
    const body = usageBody(account.apiKey, { units: 3 });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, index) => postUsage((index % 2 === 0 ? a : b).http, body)));
    expect(answers.map((res) => res.status)).toEqual(Array(40).fill(200));
    for (const res of answers) expect(res.body).toEqual({ accountId: account.id, productId: 1, credits: 47 });
    expect(await credits(account.id)).toBe(47);
    expect(await usageRows(account.id)).toEqual({ ledger: 1, answers: 1 });
  });

  it('when two bodies under one requestId race on two replicas, then one body is debited once and every copy of the other gets 409', async () => {
    const account = await a.account({ 1: 50 });
    const requestId = randomUUID();
    const one = usageBody(account.apiKey, { requestId, units: 1 });
    const two = usageBody(account.apiKey, { requestId, units: 2 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        postUsage((index % 2 === 0 ? a : b).http, index % 4 < 2 ? one : two).then((res) => ({ index, res })),
      ),
    );
    const winner = answers.find(({ res }) => res.status === 200);
    expect(winner).toBeDefined();
    const winningUnits = (winner?.index ?? 0) % 4 < 2 ? 1 : 2;
    for (const { index, res } of answers) {
      if ((index % 4 < 2 ? 1 : 2) === winningUnits)
        expect(res.body).toEqual({ accountId: account.id, productId: 1, credits: 50 - winningUnits });
      else expect(res.status).toBe(409);
    }
    expect(await credits(account.id)).toBe(50 - winningUnits);
    expect(await usageRows(account.id)).toEqual({ ledger: 1, answers: 1 });
  });
});

describe('one batch', () => {
  it('when one batch takes a pool from 12 to 0, then the ledger has 12 rows and the outbox two events: down to the last debit, then to 0', async () => {
    const account = await slow.account({ 1: 12 });
    const answers = await Promise.all(Array.from({ length: 12 }, () => postUsage(slow.http, usageBody(account.apiKey))));
    expect(answers.map((res) => res.status)).toEqual(Array(12).fill(200));
    expect(await usageRows(account.id)).toEqual({ ledger: 12, answers: 12 });
    const events = await a.pool.query<{ payload: { previousCredits: number; credits: number; cause: string; occurredAt: string } }>(
      "SELECT payload FROM outbox_event_list WHERE payload->>'accountId' = $1 ORDER BY seq, position",
      [String(account.id)],
    );
    expect(events.rows.map((row) => [row.payload.previousCredits, row.payload.credits, row.payload.cause])).toEqual([
      [12, 1, 'usage'],
      [1, 0, 'usage'],
    ]);
    // Stamped in order, so that a notifier that gets them out of order sees the first as older.
    const [run, last] = events.rows.map((row) => Date.parse(row.payload.occurredAt));
    expect(last).toBeGreaterThan(run as number);
  });

  it('when a batch takes a pool to 0, then its credit bit is closed inside the transaction, before its ledger rows are visible elsewhere', async () => {
    const account = await slow.account({ 1: 3 });
    const answers = await Promise.all(Array.from({ length: 3 }, () => postUsage(slow.http, usageBody(account.apiKey))));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(closing.seen.get(hashSecret(account.apiKey))).toBe(0);
    expect(await usageRows(account.id)).toEqual({ ledger: 3, answers: 3 });
    expect(await slow.access.findKey(hashSecret(account.apiKey))).toMatchObject({ accountId: account.id, hasCredits: false });
  });

  it('when the closing write fails, then the whole batch rolls back and answers 503; a retry with the same requestId is debited once', async () => {
    const account = await slow.account({ 1: 2 });
    const bodies = [usageBody(account.apiKey), usageBody(account.apiKey)];
    closing.failing = true;
    let failed;
    try {
      failed = await Promise.all(bodies.map((body) => postUsage(slow.http, body)));
    } finally {
      closing.failing = false;
    }
    expect(failed.map((res) => res.status)).toEqual([503, 503]);
    expect(failed[0]?.headers['retry-after']).toBe('1');
    expect(await credits(account.id)).toBe(2);
    expect(await usageRows(account.id)).toEqual({ ledger: 0, answers: 0 });
    const retried = await Promise.all(bodies.map((body) => postUsage(slow.http, body)));
    expect(retried.map((res) => res.status)).toEqual([200, 200]);
    expect(await credits(account.id)).toBe(0);
  });
});
