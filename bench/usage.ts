/**
 * `pnpm bench:usage`: only the usage API scenarios (bench/usage-scenarios.ts); `pnpm bench` runs them too.
 *   pnpm bench:usage [--seconds 10] [--turns 4] [--connections 50] [--cpu-prof <dir>] [--only usage-one-pool,usage-replay]
 *                    [--user-env USAGE_BATCH_LANES=4,USAGE_BATCH_MAX_WAIT_MS=1] [--queue classic|quorum]
 *   pnpm bench:usage --batch [--seconds 5] [--turns 2] [--connections 8] [--only batch-100-accounts,gateway-coalesced]: the
 *                    batch route and the product gateway (bench/usage-batch-scenarios.ts) instead, each group's scenarios
 *                    in turns that alternate between them.
 * BENCH_DATABASE_URL / BENCH_AMQP_URL / BENCH_REDIS_URL name the servers; BENCH_SERVER_PIDS
 * (`postgres=<postmaster pid>,rabbitmq=<beam.smp pid>`) counts only their CPU (docs/benchmarks.md).
 */
import { DEFAULT_BATCH_TURNS, formatBatchReport, runBatchBench } from './usage-batch-scenarios';
import { formatUsageReport } from './usage-report';
import { runUsageBench } from './usage-scenarios';

const option = (name: string): string | undefined => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : undefined;
};

async function main(): Promise<void> {
  const seconds = Number(option('seconds') ?? 10);
  const connections = Number(option('connections') ?? 50);
  const batch = process.argv.includes('--batch');
  const turns = Number(option('turns') ?? (batch ? DEFAULT_BATCH_TURNS : 4));
  if (!Number.isInteger(turns) || turns < 1) throw new Error('--turns: a whole number of at least 1');
  const only = option('only')?.split(',');
  const cpuProfileDir = option('cpu-prof');
  const queueType = option('queue') ?? 'classic';
  if (queueType !== 'classic' && queueType !== 'quorum') throw new Error('--queue: classic or quorum');
  const userEnv: NodeJS.ProcessEnv = {};
  for (const pair of option('user-env')?.split(',') ?? []) {
    // At the first '=' only: a value may hold one (NODE_OPTIONS=--max-semi-space-size=64).
    const at = pair.indexOf('=');
    const name = at === -1 ? pair : pair.slice(0, at);
    if (name) userEnv[name] = at === -1 ? '' : pair.slice(at + 1);
  }
  const options = {
    seconds,
    turns,
    connections,
    databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    amqpUrl: process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    ...(only ? { only } : {}),
    ...(cpuProfileDir ? { cpuProfileDir } : {}),
    userEnv,
    queueType,
  } as const;
  if (batch) {
    const results = await runBatchBench(options);
    process.stdout.write(`\n${formatBatchReport(results, options)}`);
    if (results.some((row) => !row.accountingOk)) process.exitCode = 1;
    return;
  }
  const report = await runUsageBench(options);
  process.stdout.write(`\n${formatUsageReport(report, { seconds, turns, connections, queueType })}`);
  if (report.scenarios.some((row) => !row.accountingOk)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
