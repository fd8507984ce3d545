/**
 * Postgres restarted (as after a crash) under a stream of debits, black-box: the usage API over
 * HTTP and SQL on the ledger and the pool. The server is a private one (initdb in a temporary
 * folder): the shared server on 5432 serves every other test.
 */
import { randomUUID } from 'node:crypto';
import { signServiceJwt } from '@platform/credentials';
import { createPool } from '@platform/db';
import request from 'supertest';
import { eventually, silentLogger, startPrivatePostgres, uniqueId, type PrivatePostgres } from '@platform/testing';
import { startPlatform, type Platform } from '@platform/testing/platform';
import { ADMIN_TOKEN, SERVICE_JWT_SECRET } from '@platform/user/testing';
import { errorMessage } from '@platform/runtime';
import { verifyLedgerAfterAll } from './ledger-check';

interface Debit {
  requestId: string;
  units: number;
  statuses: Array<number | string>;
}

const STARTING_CREDITS = 1_000_000;

describe('Postgres restarted during a stream of debits', () => {
  let postgres: PrivatePostgres;
  let user: Platform & { http: ReturnType<typeof request> };

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    const platform = await startPlatform({
      mode: 'real',
      name: 'pgrestart',
      services: ['user'],
      bus: 'in-process',
      databaseUrl: postgres.url,
      env: { ADMIN_TOKEN, SERVICE_JWT_SECRET },
    });
    user = Object.assign(platform, { http: request(platform.url('user')) });
  }, 60_000);

  // A failed assertion leaves the test before its debit stream stops: stopped first, or jest never exits.
  let stopStreaming = (): void => undefined;
  afterAll(() => stopStreaming());
  // Before the afterAll below drops the database: whatever the faults did, the ledger is exact.
  verifyLedgerAfterAll(() => postgres?.url);

  afterAll(async () => {
    await user?.stop();
    await postgres?.stop();
  });

  const jwt = (): string => signServiceJwt({ issuer: 'fault-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 });

  async function send(apiKey: string, debit: Debit): Promise<number | string> {
    try {
      const response = await user.http
        .post('/internal/v1/usage')
        .set('Authorization', `Bearer ${jwt()}`)
        .send({ credential: apiKey, productId: 1, units: debit.units, requestId: debit.requestId });
      debit.statuses.push(response.status);
      return response.status;
    } catch (error) {
      const failure = `no answer: ${errorMessage(error)}`;
      debit.statuses.push(failure);
      return failure;
    }
  }

  test('then every debit answered 200 is in the ledger exactly once, none is answered 5xx other than 503, and the pool equals its starting credits minus the ledger', async () => {
    const created = await user.http
      .post('/admin/v1/accounts')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ email: `${uniqueId('pgrestart')}@example.test`, credits: { 1: STARTING_CREDITS } });
    expect(created.status).toBe(201);
    const { id: accountId, apiKey } = created.body as { id: number; apiKey: string };

    const debits: Debit[] = [];
    let streaming = true;
    stopStreaming = () => {
      streaming = false;
    };
    const worker = async (): Promise<void> => {
      while (streaming) {
        const debit: Debit = { requestId: randomUUID(), units: 1 + (debits.length % 3), statuses: [] };
        debits.push(debit);
        await send(apiKey, debit);
      }
    };
    const workers = Array.from({ length: 4 }, () => worker());
    await eventually(() => (debits.filter((debit) => debit.statuses[0] === 200).length >= 20 ? true : undefined));

    // The restart hits a debit known to be inside its transaction: a second account's pool row is
    // held here, so the batch that carries its debit (and only that batch: the stream's own account
    // is not held) waits in its write (write_credit_changes, its own transaction) on that lock,
    // seen in pg_stat_activity, when Postgres goes down.
    const second = await user.http
      .post('/admin/v1/accounts')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ email: `${uniqueId('pgrestart-held')}@example.test`, credits: { 1: 10 } });
    expect(second.status).toBe(201);
    const held = second.body as { id: number; apiKey: string };
    const blockerPool = createPool({ connectionString: postgres.url, logger: silentLogger(), max: 2 });
    blockerPool.on('error', () => undefined);
    const blocker = await blockerPool.connect();
    blocker.on('error', () => undefined);
    await blocker.query('BEGIN');
    await blocker.query('SELECT credits FROM pool_balances WHERE account_id = $1 FOR UPDATE', [held.id]);
    const inFlight: Debit = { requestId: randomUUID(), units: 1, statuses: [] };
    const inFlightAnswer = send(held.apiKey, inFlight);
    await eventually(
      async () => {
        const waiting = await blockerPool.query(
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%write_credit_changes%'",
        );
        return (waiting.rowCount ?? 0) > 0 ? true : undefined;
      },
      10_000,
      'a batch waiting inside its transaction',
    );
    await postgres.restart('immediate');
    blocker.release(true);
    await blockerPool.end().catch(() => undefined);
    expect(await inFlightAnswer).toBe(503);
    const afterRestart = debits.length;
    await eventually(
      () => (debits.slice(afterRestart).filter((debit) => debit.statuses[0] === 200).length >= 20 ? true : undefined),
      20_000,
      'debits answered 200 after the restart',
    );
    streaming = false;
    await Promise.all(workers);

    // During the restart a debit may fail, as 503 only (the one held inside its transaction did); a
    // client retries it under its request id.
    const answers = new Set(debits.map((debit) => debit.statuses[0]));
    expect([...answers].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    for (const debit of debits.filter((entry) => entry.statuses[0] !== 200)) {
      await eventually(async () => ((await send(apiKey, debit)) === 200 ? true : undefined), 10_000, `retry of ${debit.requestId}`);
    }
    await eventually(async () => ((await send(held.apiKey, inFlight)) === 200 ? true : undefined), 10_000, 'retry of the held debit');
    const heldLedger = await user.pool.query<{ request_id: string; delta: string }>(
      "SELECT request_id, delta FROM credit_ledger WHERE account_id = $1 AND cause = 'usage'",
      [held.id],
    );
    expect(heldLedger.rows.map((row) => [row.request_id, Number(row.delta)])).toEqual([[inFlight.requestId, -1]]);

    const ledger = await user.pool.query<{ request_id: string; delta: string }>(
      "SELECT request_id, delta FROM credit_ledger WHERE account_id = $1 AND cause = 'usage'",
      [accountId],
    );
    const rowsByRequest = new Map<string, number[]>();
    for (const row of ledger.rows) rowsByRequest.set(row.request_id, [...(rowsByRequest.get(row.request_id) ?? []), Number(row.delta)]);
    for (const debit of debits)
      expect({ requestId: debit.requestId, deltas: rowsByRequest.get(debit.requestId) }).toEqual({
        requestId: debit.requestId,
        deltas: [-debit.units],
      });
    expect(rowsByRequest.size).toBe(debits.length);

    const used = debits.reduce((sum, debit) => sum + debit.units, 0);
    const pool = await user.pool.query<{ credits: string }>(
      'SELECT b.credits FROM pool_balances b JOIN products p ON p.pool_id = b.pool_id WHERE b.account_id = $1 AND p.id = 1',
      [accountId],
    );
    expect(Number(pool.rows[0]?.credits)).toBe(STARTING_CREDITS - used);
    const all = await user.pool.query<{ sum: string }>('SELECT sum(delta) AS sum FROM credit_ledger WHERE account_id = $1', [accountId]);
    expect(Number(all.rows[0]?.sum)).toBe(STARTING_CREDITS - used);
  }, 90_000);
});
