/**
 * `pnpm bench:operator-search`: the operator's account search (GET /admin/v1/accounts) at
 * 1,000,000 accounts (issue 29). A private database on the test Postgres gets the user schema
 * and a million accounts (one INSERT … SELECT generate_series), the user service runs in this
 * process, and autocannon loads the search with a mix of the three shapes an operator uses: an
 * exact e-mail (in another case), a substring of one e-mail, and an account id. It prints the
 * latency percentiles and each shape's plan (EXPLAIN ANALYZE) as JSON.
 *   pnpm bench:operator-search [--accounts 1000000] [--seconds 20] [--connections 10]
 */
import autocannon from 'autocannon';
import { createPool, migrate } from '@platform/db';
import { userMigrations } from '@platform/user/migrations';
import { createPrivateDatabase, silentLogger } from '@platform/testing';
import { startPlatform } from '@platform/testing/platform';
import { runMain } from '@platform/runtime';

const ADMIN_TOKEN = 'bench-operator-search-admin-token-0123456789';

function option(args: string[], name: string, fallback: number): number {
  const index = args.indexOf(`--${name}`);
  const value = index >= 0 ? Number(args[index + 1]) : fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

/** The n-th generated account's e-mail: unique local parts over 97 domains. */
const emailOf = (n: number): string => `customer.${n}@domain${n % 97}.example`;

runMain(async () => {
  const args = process.argv.slice(2);
  const accounts = option(args, 'accounts', 1_000_000);
  const seconds = option(args, 'seconds', 20);
  const connections = option(args, 'connections', 10);
  const db = await createPrivateDatabase('bench_operator_search');
  const pool = createPool({ connectionString: db.url, logger: silentLogger(), max: 2 });
  const service: { stop: () => Promise<void> } = { stop: () => Promise.resolve() };
  try {
    await migrate(pool, [userMigrations], silentLogger());
    const started = Date.now();
    await pool.query(
      `INSERT INTO accounts (email, created_at)
       SELECT 'customer.' || n || '@domain' || (n % 97) || '.example', now() - make_interval(secs => $1 - n)
         FROM generate_series(1, $1) AS n`,
      [accounts],
    );
    await pool.query('VACUUM ANALYZE accounts');
    const insertSeconds = (Date.now() - started) / 1000;

    const running = await startPlatform({
      name: 'bench_operator_search',
      services: ['user'],
      databaseUrl: db.url,
      env: { ADMIN_TOKEN, LOG_LEVEL: 'warn' },
    });
    service.stop = () => running.stop();

    // Accounts are ids 1..n in insertion order; each request asks about a random one.
    const pick = (): number => 1 + Math.floor(Math.random() * accounts);
    const shapes: Record<string, () => string> = {
      email: () => `email=${encodeURIComponent(emailOf(pick()).toUpperCase())}`,
      substring: () => `q=${encodeURIComponent(`tomer.${pick()}@dom`)}`,
      id: () => `q=${pick()}`,
    };
    const names = Object.keys(shapes);
    let next = 0;
    const result = await autocannon({
      url: running.url('user'),
      connections,
      duration: seconds,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      requests: [
        {
          method: 'GET',
          setupRequest: (request) => {
            const shape = shapes[names[next++ % names.length] as string] as () => string;
            return { ...request, path: `/admin/v1/accounts?${shape()}&limit=20` };
          },
        },
      ],
    });

    const plans: Record<string, string> = {};
    const probe = 424_242 % accounts;
    for (const [name, sql, values] of [
      ['email', 'SELECT id FROM accounts WHERE lower(email) = lower($1) ORDER BY id DESC LIMIT 21', [emailOf(probe).toUpperCase()]],
      [
        'substring',
        'SELECT id FROM accounts WHERE (lower(email) LIKE $1 OR id = $2) ORDER BY id DESC LIMIT 21',
        [`%tomer.${probe}@dom%`, 0],
      ],
      ['id', 'SELECT id FROM accounts WHERE (lower(email) LIKE $1 OR id = $2) ORDER BY id DESC LIMIT 21', [`%${probe}%`, probe]],
    ] as Array<[string, string, unknown[]]>) {
      const explained = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, values);
      plans[name] = explained.rows.map((row) => row['QUERY PLAN']).join('\n');
    }
    const report = {
      accounts,
      insertSeconds,
      connections,
      seconds,
      requests: result.requests.total,
      requestsPerSecond: result.requests.average,
      non2xx: result.non2xx,
      errors: result.errors,
      latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
      plans,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await service.stop();
    await pool.end();
    await db.drop();
  }
});
