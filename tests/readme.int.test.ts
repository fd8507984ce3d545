/**
 * The README's walk-through, run as a newcomer runs it: against `pnpm start` on embedded parts,
 * every command in order in one bash, with the `export` line `pnpm start` printed. Each step must
 * exit 0, see no HTTP answer of 400 or more unless it promises that status, and print what its
 * `# → …` comment promises.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sourceNodeArgs } from '@platform/testing';
import { walkThroughBlock, walkThroughSteps } from './readme/walk-through';

const ROOT = path.resolve(__dirname, '..');
const steps = walkThroughSteps(walkThroughBlock(readFileSync(path.join(ROOT, 'README.md'), 'utf8')));
/** pnpm itself: the one running `pnpm test`, else npx's. */
const pnpm = process.env.npm_execpath?.includes('pnpm') ? `"${process.execPath}" "${process.env.npm_execpath}"` : 'npx --yes pnpm@10';

interface StepResult {
  output: string;
  statuses: number[];
  exit: number;
}

/** Variables that would make `pnpm start` use a real server or a given secret: a newcomer has none. */
const REAL_PARTS = [
  'DATABASE_URL',
  'REDIS_URL',
  'REDIS_CLUSTER_NODES',
  'AMQP_URL',
  'SMTP_URL',
  'ADMIN_TOKEN',
  'ADMIN_TOKENS',
  'SERVICE_JWT_SECRET',
];

function platformEnv(dataDir: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !REAL_PARTS.includes(name)));
  return { ...env, DATA_DIR: dataDir, AUTH_PORT: '0', USER_PORT: '0', CATEGORIZATION_PORT: '0', NOTIFIER_PORT: '0', LOG_LEVEL: 'warn' };
}

/** Resolves with the `NAME=value` pairs of the export line once `pnpm start` has printed it. */
function exportsPrinted(child: ChildProcessWithoutNullStreams): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const line = /^\s+export (.+)$/m.exec(output);
      if (!line) return;
      child.stdout.off('data', onData);
      resolve(Object.fromEntries((line[1] as string).split(' ').map((pair) => pair.split(/=(.*)/s).slice(0, 2) as [string, string])));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`pnpm start exited (${code}) before it was ready:\n${output}`)));
  });
}

function runSteps(env: NodeJS.ProcessEnv): Promise<StepResult[]> {
  const script = [
    'set -uo pipefail',
    `pnpm() { ${pnpm} "$@"; }`,
    `curl() { command curl --write-out '%{stderr}@@http %{http_code}\\n' "$@"; }`,
    ...steps.flatMap((step, index) => [`echo "@@step ${index}"; echo "@@step ${index}" >&2`, step.command, `echo "@@exit $?"`]),
  ].join('\n');
  return new Promise((resolve) => {
    const bash = spawn('bash', ['-c', script], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    bash.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    bash.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    bash.once('close', () => {
      const outputs = stdout.split(/^@@step \d+\n/m).slice(1);
      const errors = stderr.split(/^@@step \d+\n/m).slice(1);
      resolve(
        steps.map((_, index) => {
          const [output = '', exit = '-1'] = (outputs[index] ?? '').split(/\n?@@exit /);
          const statuses = [...(errors[index] ?? '').matchAll(/^@@http (\d+)$/gm)].map((match) => Number(match[1]));
          return { output: output.trim(), statuses, exit: Number(exit.trim()) };
        }),
      );
    });
  });
}

describe('the README walk-through, against pnpm start', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'aap-readme-'));
  let platform: ChildProcessWithoutNullStreams;
  let results: StepResult[];

  beforeAll(async () => {
    platform = spawn(process.execPath, [...sourceNodeArgs, 'scripts/start-all.ts'], { cwd: ROOT, env: platformEnv(dataDir) });
    const exported = await exportsPrinted(platform);
    results = await runSteps({ ...process.env, ...exported });
  }, 240_000);

  afterAll(async () => {
    const exited = new Promise((resolve) => platform.once('exit', resolve));
    platform.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when the README is read, then its walk-through has steps that promise answers', () => {
    expect(steps.length).toBeGreaterThan(15);
    expect(steps.filter((step) => step.output !== undefined).length).toBeGreaterThan(10);
  });

  const numbered = steps.map((step, index) => ({ ...step, index, first: step.command.split('\n')[0] as string }));

  it.each(numbered)('step $index, `$first`, exits 0 and is refused only where the README says so', ({ index, command, status }) => {
    const result = results[index] as StepResult;
    expect({ command, exit: result.exit, refused: result.statuses.filter((code) => code >= 400) }).toEqual({
      command,
      exit: 0,
      refused: status === undefined ? [] : [status],
    });
  });

  it.each(numbered.filter((step) => step.output !== undefined))(
    'step $index, `$first`, prints what the README promises',
    ({ index, output }) => {
      expect((results[index] as StepResult).output).toMatch(output as RegExp);
    },
  );
});
