/**
 * A TypeScript entry point as a child process, ready once its output matches: for a process that
 * prints when it is ready (`pnpm start`), or one a test must see die or kill with SIGKILL (an
 * in-process service's crash would be the test runner's).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { sourceNodeArgs } from '../servers';
import { eventually } from '../wait';

export interface ChildProcessHandle {
  child: ChildProcessWithoutNullStreams;
  output(): string;
  /** Whether the process is still running (it has neither exited nor been killed). */
  alive(): boolean;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

export interface ChildProcessOptions {
  /** Where `script` is (the repository root). */
  cwd: string;
  /** Exactly the process's variables (PATH is added). */
  env: NodeJS.ProcessEnv;
  /** Matches the output once the process is ready. */
  ready: RegExp;
  timeoutMs?: number;
}

/** Starts `script` (relative to `cwd`); resolves once `ready` matches its output, rejects with the output if it exits first. */
export async function startChildProcess(script: string, options: ChildProcessOptions): Promise<ChildProcessHandle> {
  const child = spawn(process.execPath, [...sourceNodeArgs, script], { cwd: options.cwd, env: { PATH: process.env.PATH, ...options.env } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  const handle: ChildProcessHandle = {
    child,
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (handle.alive()) child.kill('SIGTERM');
      await exited;
      return child.exitCode;
    },
    async kill() {
      if (handle.alive()) child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await eventually(
      () => {
        if (!handle.alive()) throw new Error(`${script} exited at start:\n${output}`);
        return options.ready.test(output) ? true : undefined;
      },
      options.timeoutMs ?? 90_000,
      `${script} to start`,
    );
  } catch (error) {
    await handle.kill();
    throw error;
  }
  return handle;
}
