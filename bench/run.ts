/**
 * `pnpm bench`: throughput and latency of the hot paths on this machine, against baselines run
 * in the same run (bench/baselines.ts): bare express, the seed-flow floor, node-oidc-provider and
 * express sending a precomputed body. The platform runs as `pnpm start` does, in a child process,
 * on the real local Postgres and Redis; load comes from autocannon in this process; CONTRACT §3
 * is probed while it runs (bench/invariants.ts).
 *   pnpm bench [--seconds 10] [--connections 32]
 *   BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_REDIS_KEY_PREFIX (default bench:)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { startBaselines } from './baselines';
import { startInvariantProbe } from './invariants';
import { createAccount, issuanceScenarios, mintToken, revokedToken, seedRequest, clientCredentialsRequest } from './issuance-scenarios';
import { BASELINE_ROWS, renderReport, type Row } from './report';

const ROOT = path.resolve(__dirname, '..');
const argument = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const SECONDS = argument('seconds', 10);
const CONNECTIONS = argument('connections', 32);
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

function start(script: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** One scenario under load; `status`: what every answer must be (default: any 2xx). */
async function measure(scenario: string, options: autocannon.Options, status?: number): Promise<Row> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const counted =
    status === undefined ? undefined : (result.statusCodeStats as Record<string, { count: number } | undefined>)[String(status)];
  return {
    scenario,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected: status === undefined ? result.non2xx : result.requests.total - (counted?.count ?? 0),
  };
}

async function main(): Promise<void> {
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const keyPrefix = process.env.BENCH_REDIS_KEY_PREFIX ?? 'bench:';
  const platformEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: keyPrefix,
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
  let stopBaselines = (): void => undefined;
  try {
    const url = (name: string): string =>
      (new RegExp(`^\\s+${name}\\s+(http://\\S+)`, 'm').exec(platform.output()) as RegExpExecArray)[1] as string;
    const urls = { auth: url('auth'), user: url('user'), categorization: url('categorization') };

    const account = await createAccount(urls.user, ADMIN_TOKEN, { '1': 1_000_000_000 });
    const accessToken = await mintToken(urls.auth, account.apiKey);
    const revoked = await revokedToken(urls, ADMIN_TOKEN);
    const categoriesBody = Buffer.from(await (await fetch(`${urls.categorization}/api/v2/categories`)).arrayBuffer());
    const baselines = await startBaselines(start, { redisUrl, keyPrefix, account, categoriesBody });
    stopBaselines = () => baselines.stop();
    const probe = await startInvariantProbe(urls, ADMIN_TOKEN, revoked);

    const rows: Row[] = [];
    rows.push(
      await measure(BASELINE_ROWS.bare, {
        url: baselines.bare,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    );
    rows.push(await measure(BASELINE_ROWS.floor, { url: `${baselines.floor}/oauth/token`, ...seedRequest(account.apiKey) }, 200));
    rows.push(await measure(BASELINE_ROWS.oidc, { url: `${baselines.oidc}/oauth/token`, ...clientCredentialsRequest(account) }, 200));
    rows.push(await measure(BASELINE_ROWS.body, { url: `${baselines.bare}/categories` }, 200));
    for (const scenario of issuanceScenarios(urls, account, accessToken, revoked)) {
      rows.push(await measure(scenario.name, scenario.options, scenario.status));
    }
    const rss = rssMiB(platform.child.pid);
    const invariants = await probe.stop();

    process.stdout.write(
      renderReport(
        rows,
        `${SECONDS}s per scenario, ${CONNECTIONS} connections, ${process.platform} ${process.arch}, node ${process.version}`,
      ),
    );
    process.stdout.write(`\nplatform process (all four services) RSS after load: ${rss} MiB\n`);
    process.stdout.write(
      `CONTRACT §3 probe during the run: ${invariants.checks} checks, ${invariants.violations.length} violations${invariants.violations.length > 0 ? `: ${invariants.violations.slice(0, 5).join('; ')}` : ''}\n`,
    );
  } finally {
    platform.child.kill('SIGTERM');
    stopBaselines();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
