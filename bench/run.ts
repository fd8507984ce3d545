/**
 * `pnpm bench`: throughput and latency of the hot paths on this machine, against a bare express
 * handler as the baseline. The platform runs as `pnpm start` does, in a child process, on the
 * real local Postgres and Redis; load comes from autocannon in this process.
 *   pnpm bench [--seconds 10] [--connections 32]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { formatUsageReport } from './usage-report';
import { runUsageBench } from './usage-scenarios';

const ROOT = path.resolve(__dirname, '..');
const argument = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const SECONDS = argument('seconds', 10);
const CONNECTIONS = argument('connections', 32);
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

function start(script: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', script], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (ready.test(output)) {
        clearInterval(timer);
        resolve({ child, output: () => output });
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`${script} exited:\n${output}`));
      }
    }, 50);
  });
}

function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function measure(scenario: string, options: autocannon.Options): Promise<Row> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  return {
    scenario,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

async function main(): Promise<void> {
  const platformEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: 'bench:',
    ADMIN_TOKEN,
    AUTH_PORT: '0',
    USER_PORT: '0',
    CATEGORIZATION_PORT: '0',
    NOTIFIER_PORT: '0',
    TOKEN_RATE_PER_ACCOUNT: '100000000',
    LOG_LEVEL: 'error',
    DATA_DIR: path.join(ROOT, '.data/bench'),
  };
  const platform = await start('scripts/start-all.ts', platformEnv, /admin token\s+\S+/);
  const bare = await start('bench/bare-express.ts', { PATH: process.env.PATH }, /listening (\S+)/);
  try {
    const url = (name: string): string =>
      (new RegExp(`^\\s+${name}\\s+(http://\\S+)`, 'm').exec(platform.output()) as RegExpExecArray)[1] as string;
    const [auth, user, categorization] = [url('auth'), url('user'), url('categorization')];
    const bareUrl = (/listening (\S+)/.exec(bare.output()) as RegExpExecArray)[1] as string;

    const created = await fetch(`${user}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `bench-${Date.now()}@example.test`, credits: { '1': 1_000_000_000 } }),
    });
    const { apiKey } = (await created.json()) as { apiKey: string };
    const tokenBody = JSON.stringify({ grantType: 'access_token', expiresIn: 1800 });
    const bearerKey = `Bearer ${Buffer.from(apiKey).toString('base64')}`;
    const issued = await fetch(`${auth}/oauth/token`, {
      method: 'POST',
      headers: { authorization: bearerKey, 'content-type': 'application/json' },
      body: tokenBody,
    });
    const { accessToken } = (await issued.json()) as { accessToken: string };
    const categories = await fetch(`${categorization}/api/v2/categories`);
    const etag = categories.headers.get('etag') ?? '';

    const rows: Row[] = [];
    rows.push(
      await measure('bare express (baseline)', {
        url: bareUrl,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: tokenBody,
      }),
    );
    rows.push(
      await measure('POST /oauth/token', {
        url: `${auth}/oauth/token`,
        method: 'POST',
        headers: { authorization: bearerKey, 'content-type': 'application/json' },
        body: tokenBody,
      }),
    );
    rows.push(
      await measure('balance with token (Bearer)', {
        url: `${user}/user-service/account-balance`,
        headers: { authorization: `Bearer ${accessToken}` },
      }),
    );
    rows.push(await measure('balance with API key', { url: `${user}/user-service/account-balance?apiKey=${apiKey}` }));
    rows.push(await measure('GET /api/v2/categories', { url: `${categorization}/api/v2/categories` }));
    rows.push(
      await measure('categories, If-None-Match (304)', { url: `${categorization}/api/v2/categories`, headers: { 'if-none-match': etag } }),
    );
    const rss = rssMiB(platform.child.pid);

    const baseline = rows[0]?.rps ?? 1;
    process.stdout.write(
      `\n${SECONDS}s per scenario, ${CONNECTIONS} connections, ${process.platform} ${process.arch}, node ${process.version}\n\n`,
    );
    process.stdout.write('| scenario | req/s | % of bare | p50 ms | p99 ms | non-2xx (304s count here) |\n|---|---|---|---|---|---|\n');
    for (const row of rows) {
      process.stdout.write(
        `| ${row.scenario} | ${row.rps} | ${Math.round((row.rps / baseline) * 100)} % | ${row.p50} | ${row.p99} | ${row.non2xx} |\n`,
      );
    }
    process.stdout.write(`\nplatform process (all four services) RSS after load: ${rss} MiB\n`);

    // The usage API scenarios (their own user service process, 50 connections): bench/usage-scenarios.ts.
    const usage = { seconds: SECONDS, connections: 50 };
    const report = await runUsageBench({
      ...usage,
      databaseUrl: platformEnv.DATABASE_URL as string,
      redisUrl: platformEnv.REDIS_URL as string,
      amqpUrl: process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
      bareUrl,
      barePid: bare.child.pid,
    });
    process.stdout.write(`\n${formatUsageReport(report, usage)}`);
    if (report.scenarios.some((row) => !row.accountingOk)) process.exitCode = 1;
  } finally {
    platform.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
