/**
 * The processes `pnpm bench` (bench/run.ts) starts and loads: a script in a child node process,
 * ready once its output matches; one row measured with autocannon, with the serving process's
 * CPU per request; a process's resident memory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { processCpuMicros } from './process-cpu';
import type { Row } from './report';

const ROOT = path.resolve(__dirname, '..');

/** Runs `script` (TypeScript, through tsx) in a child node process; resolves once its output matches `ready`. */
export function start(
  script: string,
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  nodeArgs: readonly string[] = [],
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [...nodeArgs, '--conditions=development', '--import', 'tsx', script], {
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

export function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/**
 * One scenario under load (`load`: connections and seconds); `status`: what every answer must be
 * (default: any 2xx); `pid`: the process serving it.
 */
export async function measure(
  scenario: string,
  options: autocannon.Options,
  load: { connections: number; duration: number },
  status?: number,
  pid?: number,
): Promise<Row> {
  const cpuMicros = (): number | undefined => (pid === undefined ? undefined : processCpuMicros(pid));
  const cpuBefore = cpuMicros();
  const result = await autocannon({ ...load, ...options });
  const cpuAfter = cpuMicros();
  const counted =
    status === undefined ? undefined : (result.statusCodeStats as Record<string, { count: number } | undefined>)[String(status)];
  return {
    scenario,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected: status === undefined ? result.non2xx : result.requests.total - (counted?.count ?? 0),
    cpuUs: cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / Math.max(1, result.requests.total),
  };
}
