/**
 * CONTRACT §1 "Scale-out engines": DATABASE_URL may be a pooler in transaction mode. Every
 * service runs here with DATABASE_URL on Debian's pgbouncer (1.18, pool_mode = transaction, a few
 * server connections shared by all of them), DATABASE_DIRECT_URL on the server itself, and the
 * customer's flows run end to end: token, balance, rotation, concurrent usage debits, the outbox
 * relay's publish, the notifier's alerts, the category list. A named prepared statement, a session
 * advisory lock or a session SET through DATABASE_URL fails here: the next transaction of the same
 * client runs on another server connection (a canary proves the pooler is in that mode: a session
 * SET is seen by another client's transaction and not by the next one of the client that made it).
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { createPool, migrateFromEnvironment } from '@platform/db';
import {
  createPrivateDatabase,
  eventually,
  queueDepth,
  silentLogger,
  startPgbouncer,
  startTcpProxy,
  testServers,
  uniqueId,
  type Pgbouncer,
  type PrivateDatabase,
  type SmtpCapture,
  type TcpProxy,
} from '@platform/testing';
import { startPlatform, type Platform } from '@platform/testing/platform';
import { categorizationMigrations } from '@platform/categorization/migrations';
import { notifierMigrations } from '@platform/notifier/migrations';
import { userMigrations } from '@platform/user/migrations';
import { ADMIN_TOKEN, SERVICE_JWT_SECRET, bearer, call, seedBearer, serviceJwt } from '../contract/support';

const logger = silentLogger();

let bouncer: Pgbouncer;
let database: PrivateDatabase;
let direct: TcpProxy;
let platform: Platform;
/** The platform's pool: through pgbouncer, as the services' own. */
let pool: Pool;
const urls = { user: '', auth: '', categorization: '' };

const migrationFiles = (dir: string): number => readdirSync(dir).filter((name) => name.endsWith('.sql')).length;

beforeAll(async () => {
  database = await createPrivateDatabase('pooler');
  bouncer = await startPgbouncer({
    dir: path.join(os.tmpdir(), uniqueId('aap-pgbouncer-')),
    target: testServers.databaseDirectUrl,
    poolSize: 4,
  });
  // The direct URL goes through a proxy that counts its connections: the migrations must use it.
  direct = await startTcpProxy(Number(new URL(testServers.databaseDirectUrl).port || 5432));
  platform = await startPlatform({
    name: 'pooler',
    services: ['user', 'notifier', 'categorization', 'auth'],
    databaseUrl: bouncer.urlOf(database.url),
    env: {
      DATABASE_DIRECT_URL: direct.url(database.url),
      DATABASE_POOL_MAX: '6',
      ADMIN_TOKEN,
      SERVICE_JWT_SECRET,
      AUTH_URL: 'http://auth.pooler.test',
      USAGE_BATCH_LANES: '2',
      OUTBOX_POLL_MS: '100',
    },
    serviceEnv: { notifier: { NOTIFIER_MAIL_POLL_MS: '100' } },
  });
  pool = platform.pool;
  urls.user = platform.url('user');
  urls.categorization = platform.url('categorization');
  urls.auth = platform.url('auth');
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  await direct?.close();
  await bouncer?.stop();
  await database?.drop();
}, 60_000);

const token = async (apiKey: string): Promise<{ status: number; accessToken?: string }> => {
  const reply = await call(urls.auth, '/oauth/token', { headers: seedBearer(apiKey), json: { grantType: 'access_token' } });
  return { status: reply.status, ...(reply.json() as { accessToken?: string }) };
};
const balance = async (apiKey: string): Promise<{ status: number; credits: number[] }> => {
  const reply = await call(urls.user, '/user-service/account-balance', { query: { apiKey } });
  const body = reply.json() as { data?: Array<{ credits: number }> };
  return { status: reply.status, credits: (body.data ?? []).map((item) => item.credits) };
};
const debit = (credential: string, requestId = uniqueId('pooler-')): Promise<number> =>
  call(urls.user, '/internal/v1/usage', {
    headers: bearer(serviceJwt()),
    json: { credential, productId: 1, units: 1, requestId },
  }).then((reply) => reply.status);

describe('every service with DATABASE_URL on pgbouncer in transaction mode', () => {
  it('when the services start, then their migrations went through DATABASE_DIRECT_URL and are complete', async () => {
    // user, categorization and notifier each migrate at start, each on a connection of its own.
    expect(direct.accepted()).toBeGreaterThanOrEqual(3);
    const applied = await pool.query<{ user: number; categorization: number; notifier: number }>(
      `SELECT (SELECT count(*)::int FROM pgmigrations_user) AS user,
              (SELECT count(*)::int FROM pgmigrations_categorization) AS categorization,
              (SELECT count(*)::int FROM pgmigrations_notifier) AS notifier`,
    );
    expect(applied.rows).toEqual([
      {
        user: migrationFiles(userMigrations.dir),
        categorization: migrationFiles(categorizationMigrations.dir),
        notifier: migrationFiles(notifierMigrations.dir),
      },
    ]);
  });

  it('when pnpm migrate runs through the pooler alone, three at once, then each migration is applied once', async () => {
    const fresh = await createPrivateDatabase('pooler_migrate');
    try {
      const environment = { DATABASE_URL: bouncer.urlOf(fresh.url), LOG_LEVEL: 'error' };
      const sets = [userMigrations, categorizationMigrations, notifierMigrations];
      await Promise.all([1, 2, 3].map(() => migrateFromEnvironment(environment, sets)));
      const check = createPool({ connectionString: fresh.url, max: 1, logger });
      try {
        const runs = await check.query<{ runs: number }>(
          'SELECT count(*)::int AS runs FROM pgmigrations_user GROUP BY name HAVING count(*) > 1',
        );
        expect(runs.rows).toEqual([]);
        const products = await check.query<{ count: number }>('SELECT count(*)::int AS count FROM products');
        expect(products.rows).toEqual([{ count: 40 }]);
      } finally {
        await check.end();
      }
    } finally {
      await fresh.drop();
    }
  });

  it('when a customer takes a token, reads the balance and rotates the key, then every answer is right', async () => {
    const customer = await platform.account({ 1: 50 });
    const issued = await token(customer.apiKey);
    expect(issued.status).toBe(200);
    expect(await balance(customer.apiKey)).toEqual({ status: 200, credits: expect.arrayContaining([50]) as unknown });
    expect((await balance(issued.accessToken as string)).status).toBe(200);
    const rotated = await call(urls.user, '/user-service/api-key/generate', { query: { currentApiKey: customer.apiKey } });
    expect(rotated.status).toBe(200);
    const newKey = (rotated.json() as { apiKey: string }).apiKey;
    expect((await token(newKey)).status).toBe(200);
    expect((await balance(customer.apiKey)).status).toBe(401);
    expect((await token(customer.apiKey)).status).toBe(401);
  });

  it('when debits race on two accounts past their low and zero thresholds, then exactly the credits are debited and each alert is sent once', async () => {
    const [a, b] = await Promise.all([platform.account({ 1: 30 }), platform.account({ 1: 20 })]);
    // Balance reads and debits of both accounts at once, more than the pooler's server connections.
    const statuses = await Promise.all([
      ...Array.from({ length: 40 }, () => debit(a.apiKey)),
      ...Array.from({ length: 30 }, () => debit(b.apiKey)),
      ...Array.from({ length: 20 }, async () => (await balance(a.apiKey)).status),
    ]);
    const count = (status: number, from: number, to: number): number => statuses.slice(from, to).filter((s) => s === status).length;
    expect({ aOk: count(200, 0, 40), aRefused: count(403, 0, 40), bOk: count(200, 40, 70), bRefused: count(403, 40, 70) }).toEqual({
      aOk: 30,
      aRefused: 10,
      bOk: 20,
      bRefused: 10,
    });
    expect(statuses.slice(70)).toEqual(Array.from({ length: 20 }, () => 200));
    expect((await balance(a.apiKey)).credits).toContain(0);
    const ledger = await pool.query<{ account_id: number; debits: number; total: number }>(
      `SELECT account_id, count(*)::int AS debits, sum(-delta)::int AS total FROM credit_ledger
        WHERE account_id = ANY($1::int[]) AND cause = 'usage' GROUP BY account_id ORDER BY account_id`,
      [[a.id, b.id].sort((x, y) => x - y)],
    );
    expect(ledger.rows).toEqual(
      [
        { account_id: a.id, debits: 30, total: 30 },
        { account_id: b.id, debits: 20, total: 20 },
      ].sort((x, y) => x.account_id - y.account_id),
    );
    // The relay publishes through the pooler, the notifier decides through it: a low and a zero alert each.
    const mails = await eventually(
      () => {
        const to = [...mailsTo(a.email), ...mailsTo(b.email)];
        return to.length >= 4 ? to : undefined;
      },
      20_000,
      'four alert e-mails',
    );
    await eventually(
      async () => {
        const pending = await pool.query<{ pending: number }>(
          'SELECT count(*)::int AS pending FROM outbox_events WHERE published_at IS NULL',
        );
        return pending.rows[0]?.pending === 0 ? true : undefined;
      },
      20_000,
      'the outbox to drain',
    );
    await eventually(
      async () => ((await queueDepth(testServers.amqpUrl, platform.queue)) === 0 ? true : undefined),
      20_000,
      'the notifier queue to drain',
    );
    const subjects = (email: string): string[] =>
      mailsTo(email)
        .map((mail) => (mail.subject ?? '').split(':')[0] ?? '')
        .sort();
    expect(mails.length).toBe(4);
    expect(subjects(a.email)).toEqual([expect.stringMatching(/^Low balance alert/), expect.stringMatching(/^Zero balance alert/)]);
    expect(subjects(b.email)).toEqual([expect.stringMatching(/^Low balance alert/), expect.stringMatching(/^Zero balance alert/)]);
  }, 60_000);

  it('when a client sets a session variable in one transaction, then its next transaction runs on another server connection without it', async () => {
    // A database of its own: its pgbouncer pool has no server connection but the ones this test makes.
    const canaryDatabase = await createPrivateDatabase('pooler_canary');
    // Two clients of pgbouncer, each on a pool of its own (one connection each).
    const pools = [1, 2].map(() => createPool({ connectionString: bouncer.urlOf(canaryDatabase.url), max: 1, logger }));
    const onServer = async (client: PoolClient): Promise<{ pid: number; canary: string | null }> =>
      (
        await client.query<{ pid: number; canary: string | null }>(
          "SELECT pg_backend_pid() AS pid, current_setting('pooler.canary', true) AS canary",
        )
      ).rows[0] as { pid: number; canary: string | null };
    const clients: PoolClient[] = [];
    try {
      const a = await (pools[0] as Pool).connect();
      clients.push(a);
      const b = await (pools[1] as Pool).connect();
      clients.push(b);
      // A session-level SET (a custom variable: pgbouncer does not carry it from server to server,
      // as it does application_name), in A's transaction; then A's server connection is free.
      const first = await a.query<{ pid: number }>("SELECT pg_backend_pid() AS pid, set_config('pooler.canary', 'set-by-a', false)");
      const aServer = first.rows[0]?.pid;
      // B's transaction takes an idle server connection, the most recently used one (pgbouncer's
      // default, server_round_robin = 0): A's, with A's SET on it.
      await b.query('BEGIN');
      expect(await onServer(b)).toEqual({ pid: aServer, canary: 'set-by-a' });
      // While B holds it, A's next transaction runs on another server connection: its SET is not there.
      const next = await onServer(a);
      expect(next.pid).not.toBe(aServer);
      expect(next.canary).toBeNull();
      await b.query('COMMIT');
    } finally {
      // Released even when an assertion failed: a pool does not end while a client is out.
      for (const client of clients) client.release(true);
      for (const each of pools) await each.end();
      await canaryDatabase.drop();
    }
  });

  it('when the category list is asked for, then the categorization service answers it from its tables', async () => {
    const reply = await call(urls.categorization, '/api/v2/categories');
    expect(reply.status).toBe(200);
    expect((reply.json() as unknown[]).length).toBeGreaterThan(100);
  });
});

function mailsTo(email: string): SmtpCapture['messages'] {
  return (platform.smtp as SmtpCapture).messages.filter((mail) => mail.to !== undefined && JSON.stringify(mail.to).includes(email));
}
