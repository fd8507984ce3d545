/**
 * Expiry of usage requestIds (CONTRACT §9: remembered for at least 24 hours, then forgotten):
 * the sweeper deletes expired rows in batches, and under a constant load the table stays
 * bounded. A database of its own: a sweep deletes every expired row of its database.
 */
import { createPrivateDatabase, eventually, silentLogger, uniqueId, type PrivateDatabase } from '@platform/testing';
import { startRetentionSweeper } from '@platform/db';
import { deleteExpiredUsageRequests } from '../src/store/usage-requests';
import { startHarness, testConfig, type Harness } from './harness';
import { postUsage, usageBody } from './usage-calls';

let db: PrivateDatabase;
let h: Harness;

beforeAll(async () => {
  db = await createPrivateDatabase('usage_expiry');
  // The service's own sweeper, every 100 ms (retention: the default, 25 h).
  h = await startHarness({
    config: testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `${uniqueId('test-usage-expiry:')}:`, USAGE_REQUEST_SWEEP_MS: '100' }),
  });
});

afterAll(async () => {
  await h?.stop();
  await db?.drop();
});

const rowCount = async (): Promise<number> => Number((await h.pool.query('SELECT count(*)::int AS n FROM usage_requests')).rows[0].n);

it('when requestIds are older than the retention, then the service sweeps them and keeps the younger ones, which still replay', async () => {
  const account = await h.account({ 1: 100 });
  const bodies = Array.from({ length: 23 }, () => usageBody(account.apiKey));
  for (const body of bodies) expect((await postUsage(h.http, body)).status).toBe(200);
  const old = bodies.slice(0, 20).map((body) => body.requestId as string);
  await h.pool.query("UPDATE usage_requests SET created_at = now() - interval '26 hours' WHERE request_id = ANY($1)", [old]);

  // Nothing here sweeps: the service's sweeper (USAGE_REQUEST_SWEEP_MS, USAGE_REQUEST_RETENTION_HOURS) does.
  await eventually(async () => ((await rowCount()) === 3 ? true : undefined), 5000, "the service's sweeper");

  const kept = await h.pool.query('SELECT request_id FROM usage_requests');
  expect(kept.rows.map((row) => row.request_id as string).sort()).toEqual(
    bodies
      .slice(20)
      .map((body) => body.requestId as string)
      .sort(),
  );
  const young = await postUsage(h.http, bodies[22] as Record<string, unknown>);
  expect(young.body.credits).toBe(77);
  expect(Number((await h.pool.query('SELECT credits FROM pool_balances WHERE account_id = $1', [account.id])).rows[0].credits)).toBe(77);
});

it('when a sweep finds more expired rows than its batch, then it deletes them in batches of that size until none is left', async () => {
  await h.pool.query('DELETE FROM usage_requests');
  const account = await h.account({ 1: 100 });
  const bodies = Array.from({ length: 20 }, () => usageBody(account.apiKey));
  for (const body of bodies) expect((await postUsage(h.http, body)).status).toBe(200);
  const sweeper = startRetentionSweeper({
    name: 'usage request',
    pool: h.pool,
    logger: silentLogger(),
    // Every row counts as expired here (the service's sweeper, with its 25 h, leaves them).
    retentionMs: 0,
    intervalMs: 3_600_000,
    batchSize: 7,
    deleteExpired: async (db, retentionMs, limit) => {
      const deleted = await deleteExpiredUsageRequests(db, retentionMs, limit);
      batches.push(deleted);
      return deleted;
    },
  });
  const batches: number[] = [];
  try {
    expect(await sweeper.sweep()).toBe(20);
  } finally {
    await sweeper.stop();
  }
  expect(batches).toEqual([7, 7, 6]);
  expect(await rowCount()).toBe(0);
});

it('when debits keep coming, then the table holds only the requestIds of the last retention window and empties once they stop', async () => {
  await h.pool.query('DELETE FROM usage_requests');
  const account = await h.account({ 1: 1_000_000 });
  // A retention of 300 ms (24 h in service): the table should hold about 0.4 s of debits.
  const sweeper = startRetentionSweeper({
    name: 'usage request',
    pool: h.pool,
    logger: silentLogger(),
    retentionMs: 300,
    intervalMs: 100,
    deleteExpired: deleteExpiredUsageRequests,
  });
  const samples: number[] = [];
  let granted = 0;
  try {
    const until = Date.now() + 3000;
    const worker = async (): Promise<void> => {
      while (Date.now() < until) {
        if ((await postUsage(h.http, usageBody(account.apiKey))).status === 200) granted += 1;
      }
    };
    const sampler = async (): Promise<void> => {
      while (Date.now() < until) {
        samples.push(await rowCount());
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    await Promise.all([...Array.from({ length: 8 }, worker), sampler()]);
    expect(granted).toBeGreaterThan(50);
    // Bounded: never more than a fraction of what was written in the 3 s.
    expect(Math.max(...samples)).toBeLessThan(granted / 3);
    await eventually(async () => ((await rowCount()) === 0 ? true : undefined), 10_000, 'every requestId to expire');
  } finally {
    await sweeper.stop();
  }
  const ledger = await h.pool.query("SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND cause = 'usage'", [account.id]);
  expect(ledger.rows[0].n).toBe(granted);
});
