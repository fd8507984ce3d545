/**
 * A/B of two checkouts on one scenario, for a machine too busy for absolute figures: both
 * platforms run at once (each as `pnpm bench` starts it, own Redis key prefix), autocannon loads
 * them in turn for several rounds, and the CPU each request costs each serving process is
 * reported as medians (load that comes and goes weighs on both alike).
 *   node --conditions=development --import tsx bench/compare.ts <other checkout | floor> [--scenario seed] [--rounds 6] [--seconds 4]
 * `--scenario`: a substring of a row name of bench/issuance-scenarios.ts. `floor` instead of a
 * checkout: the seed flow of this checkout against the seed-flow floor (bench/floors.ts) on the
 * same key records.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { ADMIN_TOKEN, benchPlatformEnv } from './platform-env';
import { createAccount, issuanceScenarios, mintToken, revokedToken, seedRequest, type Scenario } from './issuance-scenarios';

const option = (name: string, fallback: string): string => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? (process.argv[index + 1] as string) : fallback;
};

interface Served {
  pid: number;
  urls: Record<'auth' | 'user' | 'categorization', string>;
  stop(): Promise<void>;
}

/** The seed-flow floor (bench/floors.ts) on the key records of the platform with `prefix`; its URL as `urls.auth`. */
async function startFloor(prefix: string): Promise<Served> {
  const child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', 'bench/floors.ts'], {
    cwd: path.resolve(__dirname, '..'),
    env: { PATH: process.env.PATH, REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: prefix },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  while (!/listening (\S+)/.test(output)) {
    if (child.exitCode !== null) throw new Error(`the floor exited:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = (/listening (\S+)/.exec(output) as RegExpExecArray)[1] as string;
  return {
    pid: child.pid as number,
    urls: { auth: url, user: url, categorization: url },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function startPlatform(root: string, prefix: string): Promise<Served> {
  const child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', 'scripts/start-all.ts'], {
    cwd: root,
    env: benchPlatformEnv(root, prefix),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  while (!/admin token\s+\S+/.test(output)) {
    if (child.exitCode !== null) throw new Error(`platform in ${root} exited:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = (name: string): string => (new RegExp(`^\\s+${name}\\s+(http://\\S+)`, 'm').exec(output) as RegExpExecArray)[1] as string;
  return {
    pid: child.pid as number,
    urls: { auth: url('auth'), user: url('user'), categorization: url('categorization') },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const cpuMicros = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const againstFloor = process.argv[2] === 'floor';
  const other = againstFloor ? 'seed-flow floor' : path.resolve(process.argv[2] ?? '');
  const scenarioName = option('scenario', 'seed');
  const rounds = Number(option('rounds', '6'));
  const seconds = Number(option('seconds', '4'));
  const sides = [
    { name: `this checkout`, root: path.resolve(__dirname, '..'), prefix: 'bench-a:' },
    { name: other, root: other, prefix: 'bench-b:' },
  ];
  const platforms = await Promise.all(
    againstFloor
      ? [startPlatform(sides[0]!.root, 'bench-a:'), startFloor('bench-a:')]
      : sides.map((side) => startPlatform(side.root, side.prefix)),
  );
  try {
    const scenarioOf = async (urls: Served['urls']): Promise<{ scenario: Scenario; apiKey: string }> => {
      const account = await createAccount(urls.user, ADMIN_TOKEN, { '1': 1_000_000_000 });
      const token = await mintToken(urls.auth, account.apiKey);
      const revoked = await revokedToken(urls, ADMIN_TOKEN);
      const scenario = issuanceScenarios(urls, account, token, revoked).find((row) => row.name.includes(scenarioName));
      if (!scenario) throw new Error(`no scenario named like ${scenarioName}`);
      return { scenario, apiKey: account.apiKey };
    };
    const ours = await scenarioOf(platforms[0]!.urls);
    const theirs: Scenario = againstFloor
      ? { ...ours.scenario, options: { url: `${platforms[1]!.urls.auth}/oauth/token`, ...seedRequest(ours.apiKey) } }
      : (await scenarioOf(platforms[1]!.urls)).scenario;
    const loads = [ours.scenario, theirs];
    const cpu: number[][] = [[], []];
    const rps: number[][] = [[], []];
    for (let round = 0; round < rounds; round += 1) {
      for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const { pid } = platforms[index]!;
        const before = cpuMicros(pid);
        const result = await autocannon({ connections: 50, duration: seconds, ...loads[index]!.options });
        if (round === 0) continue; // the first round warms both up (JIT) and is not counted
        cpu[index]!.push((cpuMicros(pid) - before) / Math.max(1, result.requests.total));
        rps[index]!.push(result.requests.average);
        if (result.non2xx > 0 && loads[index]!.status < 300) throw new Error(`${sides[index]!.name}: ${result.non2xx} non-2xx answers`);
      }
    }
    process.stdout.write(`${loads[0]!.name}, ${rounds - 1} rounds of ${seconds} s after one of warm-up, 50 connections\n`);
    sides.forEach((side, index) =>
      process.stdout.write(
        `  ${side.name}: CPU µs/req median ${median(cpu[index]!).toFixed(0)} (${cpu[index]!.map((value) => value.toFixed(0)).join(' ')}), req/s median ${median(rps[index]!).toFixed(0)}\n`,
      ),
    );
  } finally {
    await Promise.all(platforms.map((platform) => platform.stop()));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
