/**
 * Services as child processes, for fault tests that must see whether a process survives (an
 * in-process service's crash would be the test runner's) or that kill one with SIGKILL.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { eventually, sourceNodeArgs } from '@platform/testing';

const ROOT = path.resolve(__dirname, '../..');

export interface ChildService {
  child: ChildProcessWithoutNullStreams;
  output(): string;
  /** Whether the process is still running (it has neither exited nor been killed). */
  alive(): boolean;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

/** Starts `script` (relative to the repository root) with exactly `env` (plus PATH); resolves once `ready` matches its output. */
export async function startChild(script: string, env: NodeJS.ProcessEnv, ready: RegExp, timeoutMs = 90_000): Promise<ChildService> {
  const child = spawn(process.execPath, [...sourceNodeArgs, script], { cwd: ROOT, env: { PATH: process.env.PATH, ...env } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  const service: ChildService = {
    child,
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (service.alive()) child.kill('SIGTERM');
      await exited;
      return child.exitCode;
    },
    async kill() {
      if (service.alive()) child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await eventually(
      () => {
        if (!service.alive()) throw new Error(`${script} exited at start:\n${output}`);
        return ready.test(output) ? true : undefined;
      },
      timeoutMs,
      `${script} to start`,
    );
  } catch (error) {
    await service.kill();
    throw error;
  }
  return service;
}

/** The URL `pnpm start` printed for a service (`  auth            http://127.0.0.1:…`). */
export function platformUrl(output: string, name: string): string {
  const match = new RegExp(`^\\s+${name}\\s+(http://\\S+)`, 'm').exec(output);
  if (!match) throw new Error(`no URL for ${name} in:\n${output}`);
  return match[1] as string;
}
