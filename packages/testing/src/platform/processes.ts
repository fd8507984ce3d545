/**
 * The platform's services as processes of their own, for tests that must see a process die, kill
 * one with SIGKILL, or pause one at a step (TEST_PAUSE_AT): one service's `main.ts`
 * (`startServiceOf`), or the four together as `pnpm start` runs them (mode `embedded`: Postgres,
 * Redis, RabbitMQ and SMTP embedded where their URL is unset, the real ones where it is set).
 */
import path from 'node:path';
import { eventually } from '../wait';
import { freePort } from '../tcp-proxy';
import { startServiceProcess, type ServiceProcess } from '../process';
import { startChildProcess, type ChildProcessHandle } from './child';
import type { PlatformHandle, PlatformService } from './handle';

/** The repository's root, where the entry points are. */
export const REPOSITORY_ROOT = path.resolve(__dirname, '../../../..');

const PORT_VARIABLE: Record<PlatformService, string> = {
  auth: 'AUTH_PORT',
  user: 'USER_PORT',
  categorization: 'CATEGORIZATION_PORT',
  notifier: 'NOTIFIER_PORT',
};

export interface ServiceProcessOptions {
  /** Exactly the service's variables (PATH is added; nothing else of this process's environment is passed). */
  env: Record<string, string>;
  /** The range its port is picked from: one no other test uses, so the ready check reaches this process. */
  ports: { from: number; to: number };
  /** Pauses the process at `<point>[@<hit>]` (services/user/src/pause-point.ts) until SIGUSR2. */
  pauseAt?: string;
}

/** `services/<name>/src/main.ts` as its own process, once its ready check answers 200. */
export async function startServiceOf(name: PlatformService, options: ServiceProcessOptions): Promise<ServiceProcess> {
  const port = await freePort(options.ports);
  return startServiceProcess({
    script: `services/${name}/src/main.ts`,
    cwd: REPOSITORY_ROOT,
    port,
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: 'warn',
      ...options.env,
      [PORT_VARIABLE[name]]: String(port),
      ...(options.pauseAt === undefined ? {} : { TEST_PAUSE_AT: options.pauseAt }),
    },
  });
}

/** Resolves once the process says it is paused at `point` (it waits there until SIGUSR2). */
export function pausedAt(service: { output(): string }, point: string): Promise<unknown> {
  return eventually(() => (service.output().includes(`PAUSED AT ${point}`) ? true : undefined), 20_000, `the process paused at ${point}`);
}

/** `pnpm start`'s process (its `child`, `output()`, `alive()`, `kill()`), as a platform. */
export interface EmbeddedPlatform extends Omit<ChildProcessHandle, 'stop'>, PlatformHandle {
  /** The URL `pnpm start` printed for each service. */
  urls: Record<PlatformService, string>;
  /** SIGTERM, then waits for the process to exit. */
  stop(): Promise<void>;
  /** The process's exit code once it has exited (null while it runs, or when a signal ended it). */
  exitCode(): number | null;
}

/** The URL `pnpm start` printed for a service (`  auth            http://127.0.0.1:…`). */
export function platformUrl(output: string, name: string): string {
  const match = new RegExp(`^\\s+${name}\\s+(http://\\S+)`, 'm').exec(output);
  if (!match) throw new Error(`no URL for ${name} in:\n${output}`);
  return match[1] as string;
}

/** `pnpm start` (scripts/start-all.ts) with exactly `env` (plus PATH), once it has printed its URLs (within `timeoutMs`, default 90 s). */
export async function startEmbeddedPlatform(env: Record<string, string>, timeoutMs?: number): Promise<EmbeddedPlatform> {
  const child = await startChildProcess('scripts/start-all.ts', {
    cwd: REPOSITORY_ROOT,
    env,
    ready: /admin token/,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  const output = child.output();
  return {
    ...child,
    async stop() {
      await child.stop();
    },
    exitCode: () => child.child.exitCode,
    urls: {
      auth: platformUrl(output, 'auth'),
      user: platformUrl(output, 'user'),
      categorization: platformUrl(output, 'categorization'),
      notifier: platformUrl(output, 'notifier'),
    },
  };
}
