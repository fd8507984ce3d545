import { spawn, type ChildProcess } from 'node:child_process';
import { sourceNodeArgs } from './servers';

/** A service started as its own Node.js process (TypeScript from source: `node --conditions=development --import tsx <script>`). */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL if it has not ended within `graceMs`. */
  stop(graceMs?: number): Promise<number | string>;
}

export interface StartServiceProcessOptions {
  /** Path of the entry point, relative to `cwd`. */
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The port the service was told to listen on (its URL is http://127.0.0.1:<port>). */
  port: number;
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** Answers 200 once the service is ready. Default `/health/ready`. */
  readyPath?: string;
  /** How long to wait for the ready path to answer 200. Default 60 s. */
  readyTimeoutMs?: number;
}

async function isReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Spawns the service and resolves once its ready path answers 200 (rejects with its output if it exits first). */
export async function startServiceProcess(options: StartServiceProcessOptions): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...sourceNodeArgs, options.script], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const url = `http://127.0.0.1:${options.port}`;
  const service: ServiceProcess = {
    child,
    url,
    output: () => output,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${options.script} exited before it was ready:\n${output}`);
    if (await isReady(`${url}${options.readyPath ?? '/health/ready'}`)) return service;
    if (Date.now() > deadline) {
      await service.stop(1000);
      throw new Error(`${options.script} was not ready in time:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
