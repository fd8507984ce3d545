/**
 * Postgres partitioned away under load (CONTRACT §1, faults answer fast): the user service
 * reaches its database through a TCP proxy that stops forwarding while keeping every connection
 * open, so no error ever arrives; only the service's own timeouts end a request. Every request
 * caught in it, debits and balance reads alike, answers 503 with Retry-After within 5 s of its
 * arrival, and the service serves again once the partition heals. Also through pgbouncer (the
 * partition between it and Postgres): the pooler then takes the service's connections at once
 * and only its statements stall, batch after batch.
 */
import { signServiceJwt } from '@platform/credentials';
import { errorMessage } from '@platform/runtime';
import {
  createPrivateDatabase,
  eventually,
  startPgbouncer,
  startTcpProxy,
  uniqueId,
  type Pgbouncer,
  type PrivateDatabase,
  type TcpProxy,
} from '@platform/testing';
import { startPlatform, type Platform } from '@platform/testing/platform';
import { SERVICE_JWT_SECRET } from '@platform/user/testing';
import { verifyLedgerAfterAll } from './ledger-check';

const BUDGET_MS = 5000;

interface Answer {
  kind: 'debit' | 'balance';
  startedAt: number;
  ms: number;
  status: number | string;
  retryAfter: string | null;
}

describe.each(['directly', 'through pgbouncer'])('Postgres black-holed during a stream of debits and reads (%s)', (route) => {
  let db: PrivateDatabase;
  let proxy: TcpProxy;
  let pgbouncer: Pgbouncer | undefined;
  let user: Platform;

  beforeAll(async () => {
    db = await createPrivateDatabase('pgblackhole');
    proxy = await startTcpProxy(Number(new URL(db.url).port || 5432));
    const partitioned = proxy.url(db.url);
    if (route === 'through pgbouncer') pgbouncer = await startPgbouncer({ dir: `/tmp/${uniqueId('pgbh-bouncer-')}`, target: partitioned });
    user = await startPlatform({
      mode: 'real',
      name: 'pgblackhole',
      services: ['user'],
      bus: 'in-process',
      databaseUrl: pgbouncer?.urlOf(partitioned) ?? partitioned,
      // Migrations never go through a pooler in transaction mode (CONTRACT §1).
      env: { DATABASE_DIRECT_URL: partitioned, SERVICE_JWT_SECRET },
    });
  }, 60_000);

  // Before the afterAll below drops the database: whatever the faults did, the ledger is exact.
  verifyLedgerAfterAll(() => db?.url);

  afterAll(async () => {
    proxy?.restore();
    await user?.stop();
    await pgbouncer?.stop();
    await proxy?.close();
    await db?.drop();
  });

  async function timed(kind: Answer['kind'], path: string, init: RequestInit): Promise<Answer> {
    const startedAt = performance.now();
    try {
      // Far longer than the budget: a request that overstays it is measured, not cut short here.
      const response = await fetch(`${user.url('user')}${path}`, { ...init, signal: AbortSignal.timeout(15_000) });
      await response.arrayBuffer();
      return {
        kind,
        startedAt,
        ms: performance.now() - startedAt,
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
      };
    } catch (error) {
      return { kind, startedAt, ms: performance.now() - startedAt, status: `no answer: ${errorMessage(error)}`, retryAfter: null };
    }
  }

  test('then every request caught in it answers 503 with Retry-After within 5 s, and debits succeed again after it', async () => {
    const account = await user.account({ 1: 1_000_000 }, { ledger: true });
    const token = await user.token(account);
    const jwt = signServiceJwt({ issuer: 'fault-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 });
    const debit = (): Promise<Answer> =>
      timed('debit', '/internal/v1/usage', {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
        body: JSON.stringify({ credential: account.apiKey, productId: 1, units: 1, requestId: uniqueId('pgbh') }),
      });
    const balance = (): Promise<Answer> =>
      timed('balance', '/user-service/account-balance', { headers: { authorization: `Bearer ${token}` } });

    const answers: Answer[] = [];
    let loading = true;
    const loop = async (call: () => Promise<Answer>): Promise<void> => {
      while (loading) answers.push(await call());
    };
    const load = [loop(debit), loop(debit), loop(debit), loop(balance)];
    await eventually(() => (answers.filter((answer) => answer.status === 200).length >= 20 ? true : undefined), 20_000, 'load');

    proxy.blackHole();
    const from = performance.now();
    // Requests in flight at that moment may have been answered already; those that arrived later cannot be.
    const caught = (): Answer[] => answers.filter((answer) => answer.startedAt >= from);
    // Each kind answered several times while nothing went through.
    await eventually(
      () => (['debit', 'balance'].every((kind) => caught().filter((answer) => answer.kind === kind).length >= 3) ? true : undefined),
      30_000,
      'answers during the partition',
    );
    const during = caught();
    proxy.restore();
    const healed = answers.length;
    await eventually(
      () => (answers.slice(healed).some((answer) => answer.kind === 'debit' && answer.status === 200) ? true : undefined),
      20_000,
      'a debit answered 200 after the partition',
    );
    loading = false;
    await Promise.all(load);

    expect(during.filter((answer) => answer.status !== 503 || answer.retryAfter === null)).toEqual([]);
    expect(answers.filter((answer) => answer.ms >= BUDGET_MS)).toEqual([]);
  }, 90_000);
});
