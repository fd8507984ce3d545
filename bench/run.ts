/**
 * `pnpm bench`: throughput and latency of the hot paths on this machine, against baselines run
 * in the same run (bench/baselines.ts): bare express, the seed-flow floor, a plain balance read, node-oidc-provider and
 * express sending a precomputed body. The platform runs as `pnpm start` does, in a child process,
 * on the real local Postgres and Redis; load comes from autocannon in this process; CONTRACT §3
 * is probed while it runs (bench/invariants.ts).
 *   pnpm bench [--seconds 10] [--connections 32] [--rounds 1] [--warmup 3] [--only <substring>,…] [--cpu-prof <dir>] [--tracing]
 * `--tracing`: the issuance scenarios also run on a second platform process with OpenTelemetry
 * tracing on (OTEL_EXPORTER_OTLP_ENDPOINT set to a local sink that accepts and counts the exports,
 * bench/otlp-sink.ts), as rows marked "(tracing on)" beside the same rows with tracing off.
 * `--warmup`: seconds of the same load, not measured, before a row's first measurement, so that no
 * row pays for its server's JIT compilation and first-use work (the platform's first row did).
 * `--only`: just the rows whose name contains one of the substrings, with the baselines they are
 * compared with (bare express always); the usage scenarios run only when `usage` is named.
 * `--cpu-prof`: the platform and the baselines run under `node --cpu-prof`, their profiles written to <dir>
 * when they stop (bench/cpu-profile-summary.ts reads them).
 * With several rounds, every scenario and baseline is measured once per round, in turn, and the
 * report shows medians: on a machine shared with other work, load that comes and goes then
 * weighs on the rows alike. The CPU each request costs the serving process is shown too.
 *   BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_REDIS_KEY_PREFIX (default bench:)
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { measure, rssMiB, start } from './bench-processes';
import { startOtlpSink, type OtlpSink } from './otlp-sink';
import { formatUsageReport } from './usage-report';
import { runUsageBench } from './usage-scenarios';
import { startBaselines } from './baselines';
import { ADMIN_TOKEN, benchPlatformEnv } from './platform-env';
import { startInvariantProbe } from './invariants';
import {
  createAccount,
  issuanceScenarios,
  type Baseline,
  mintToken,
  revokedToken,
  seedRequest,
  clientCredentialsRequest,
} from './issuance-scenarios';
import { BASELINE_ROWS, medianRows, renderReport, type Row } from './report';

const ROOT = path.resolve(__dirname, '..');
const argument = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const SECONDS = argument('seconds', 10);
const CONNECTIONS = argument('connections', 32);
const ROUNDS = argument('rounds', 1);
const WARMUP = argument('warmup', 3);
const option = (name: string): string | undefined => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : undefined;
};
const ONLY = option('only')?.split(',');
const CPU_PROFILE_DIR = option('cpu-prof');
const TRACING = process.argv.includes('--tracing');

async function main(): Promise<void> {
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const keyPrefix = process.env.BENCH_REDIS_KEY_PREFIX ?? 'bench:';
  const platformEnv = benchPlatformEnv(ROOT, keyPrefix);
  const nodeArgs = CPU_PROFILE_DIR === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', CPU_PROFILE_DIR];
  const platform = await start('scripts/start-all.ts', platformEnv, /admin token\s+\S+/, nodeArgs);
  let stopBaselines = (): Promise<void> => Promise.resolve();
  let traced: { child: ChildProcess; output: () => string; sink: OtlpSink } | undefined;
  try {
    const urlsIn = (output: string) => {
      const url = (name: string): string => (new RegExp(`^\\s+${name}\\s+(http://\\S+)`, 'm').exec(output) as RegExpExecArray)[1] as string;
      return { auth: url('auth'), user: url('user'), categorization: url('categorization') };
    };
    const urls = urlsIn(platform.output());
    if (TRACING) {
      // The same platform with tracing on, exporting every span (OTLP over HTTP) to a local sink.
      const sink = await startOtlpSink();
      const env = { ...platformEnv, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, DATA_DIR: path.join(ROOT, '.data/bench-traced') };
      traced = { ...(await start('scripts/start-all.ts', env, /admin token\s+\S+/, nodeArgs)), sink };
    }

    const account = await createAccount(urls.user, ADMIN_TOKEN, { '1': 1_000_000_000 });
    const accessToken = await mintToken(urls.auth, account.apiKey);
    const revoked = await revokedToken(urls, ADMIN_TOKEN);
    const categoriesBody = Buffer.from(await (await fetch(`${urls.categorization}/api/v2/categories`)).arrayBuffer());
    const baselines = await startBaselines(start, {
      redisUrl,
      databaseUrl: platformEnv.DATABASE_URL as string,
      keyPrefix,
      account,
      categoriesBody,
      nodeArgs,
    });
    stopBaselines = () => baselines.stop();
    const floorToken = await mintToken(baselines.floor, account.apiKey);
    const probe = await startInvariantProbe(urls, ADMIN_TOKEN, revoked);

    const pid = platform.child.pid;
    const scenarios = issuanceScenarios(urls, account, accessToken, revoked).filter(
      (scenario) => ONLY === undefined || ONLY.some((part) => scenario.name.includes(part)),
    );
    const wanted = (baseline: Baseline): boolean =>
      ONLY === undefined || baseline === 'bare' || scenarios.some((scenario) => scenario.baseline === baseline);
    // `baseline`: set on the baseline rows (which a filtered run keeps only when a row is compared with them).
    const allJobs: Array<{ name: string; baseline?: Baseline; options: autocannon.Options; status?: number; pid: number | undefined }> = [
      {
        baseline: 'bare',
        name: BASELINE_ROWS.bare,
        options: { url: baselines.bare, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
        pid: baselines.pids.bare,
      },
      {
        baseline: 'floor',
        name: BASELINE_ROWS.floor,
        options: { url: `${baselines.floor}/oauth/token`, ...seedRequest(account.apiKey) },
        status: 200,
        pid: baselines.pids.floor,
      },
      {
        baseline: 'plainBalance',
        name: BASELINE_ROWS.plainBalance,
        options: { url: `${baselines.floor}/account-balance`, headers: { authorization: `Bearer ${floorToken}` } },
        status: 200,
        pid: baselines.pids.floor,
      },
      {
        baseline: 'oidc',
        name: BASELINE_ROWS.oidc,
        options: { url: `${baselines.oidc}/oauth/token`, ...clientCredentialsRequest(account) },
        status: 200,
        pid: baselines.pids.oidc,
      },
      {
        baseline: 'body',
        name: BASELINE_ROWS.body,
        options: { url: `${baselines.bare}/categories` },
        status: 200,
        pid: baselines.pids.bare,
      },
      ...scenarios.map((scenario) => ({
        name: scenario.name,
        options: scenario.options,
        status: scenario.status,
        pid,
      })),
      ...(traced === undefined
        ? []
        : issuanceScenarios(urlsIn(traced.output()), account, accessToken, revoked)
            .filter((scenario) => scenarios.some((kept) => kept.name === scenario.name))
            .map((scenario) => ({
              name: `${scenario.name} (tracing on)`,
              options: scenario.options,
              status: scenario.status,
              pid: traced?.child.pid,
            }))),
    ];
    const jobs = allJobs.filter((job) => job.baseline === undefined || wanted(job.baseline));
    const measured: Row[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const job of jobs) {
        if (round === 0 && WARMUP > 0) await autocannon({ connections: CONNECTIONS, duration: WARMUP, ...job.options });
        const row = await measure(job.name, job.options, { connections: CONNECTIONS, duration: SECONDS }, job.status, job.pid);
        measured.push(row);
        // Progress, and each round's own figures (the table shows medians).
        process.stderr.write(
          `round ${round + 1}: ${row.scenario}: ${row.rps} req/s, p99 ${row.p99} ms, ${row.cpuUs === undefined ? '–' : Math.round(row.cpuUs)} µs/req\n`,
        );
      }
    }
    const rows = medianRows(measured);
    const rss = rssMiB(platform.child.pid);
    const invariants = await probe.stop();

    process.stdout.write(
      renderReport(
        rows,
        `${SECONDS}s per scenario after ${WARMUP}s of warm-up${ROUNDS > 1 ? ` × ${ROUNDS} rounds (medians)` : ''}, ${CONNECTIONS} connections, ${process.platform} ${process.arch}, node ${process.version}`,
      ),
    );
    process.stdout.write(`\nplatform process (all four services) RSS after load: ${rss} MiB\n`);
    if (traced) {
      const exported = traced.sink.stats();
      process.stdout.write(
        `tracing on: RSS after load ${rssMiB(traced.child.pid)} MiB; the OTLP sink received ${exported.requests} exports, ${Math.round(exported.bytes / 1024)} KiB\n`,
      );
    }
    process.stdout.write(
      `CONTRACT §3 probe during the run: ${invariants.checks} checks, ${invariants.violations.length} violations${invariants.violations.length > 0 ? `: ${invariants.violations.slice(0, 5).join('; ')}` : ''}\n`,
    );

    if (ONLY !== undefined && !ONLY.includes('usage')) return;
    // The usage API scenarios (their own user service process, 50 connections): bench/usage-scenarios.ts.
    const usage = { seconds: SECONDS, connections: 50 };
    const report = await runUsageBench({
      ...usage,
      databaseUrl: platformEnv.DATABASE_URL as string,
      redisUrl: platformEnv.REDIS_URL as string,
      amqpUrl: process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
      bareUrl: baselines.bare,
      barePid: baselines.pids.bare,
    });
    process.stdout.write(`\n${formatUsageReport(report, usage)}`);
    if (report.scenarios.some((row) => !row.accountingOk)) process.exitCode = 1;
  } finally {
    // With --cpu-prof the profile is written as the platform exits: wait for it.
    const { child } = platform;
    const exited =
      child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve));
    platform.child.kill('SIGTERM');
    traced?.child.kill('SIGTERM');
    await Promise.all([stopBaselines(), exited, traced?.sink.close()]);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
