/**
 * Detached server processes of the local cluster: each runs in a process group of its own, its
 * output in a log file of the state folder, so that `pnpm cluster up` can exit and a later
 * `down` (another process) finds and stops it by the pid written to the state file.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';

/** The unprivileged user Postgres, Patroni and pgbouncer run as when the cluster is started as root (they refuse root). */
export interface RunAs {
  uid: number;
  gid: number;
  home: string;
}

export function postgresUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  // Debian's postgresql package creates the user in /etc/passwd.
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error("no postgres user: install Debian's postgresql package, or run the cluster as a user other than root");
  const [, , uid, gid, , home] = line.split(':');
  return { uid: Number(uid), gid: Number(gid), home: home ?? '/var/lib/postgresql' };
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  logDir: string;
  runAs?: RunAs | undefined;
  /** Only PATH from this process's environment, then `env` (the services: nothing of a test runner's leaks in). */
  cleanEnv?: boolean;
}

/** Starts a detached process whose stdout and stderr go to `<logDir>/<name>.log`; returns its pid. */
export function startDetached(options: StartOptions): number {
  const log = openSync(path.join(options.logDir, `${options.name}.log`), 'a');
  try {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: {
        ...(options.cleanEnv ? { PATH: process.env.PATH } : process.env),
        ...options.env,
        ...(options.runAs ? { HOME: options.runAs.home } : {}),
      },
      detached: true,
      stdio: ['ignore', log, log],
      ...(options.runAs ? { uid: options.runAs.uid, gid: options.runAs.gid } : {}),
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`${options.command} did not start`);
    return child.pid;
  } finally {
    closeSync(log);
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user (a process we started as postgres).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sends `signal` to the process group `pid` leads (every child it started), else to the process. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
      return;
    } catch {
      // ESRCH: no such group (the leader re-parented its children) or already gone.
    }
  }
}

/** SIGTERM to the group, then SIGKILL once `graceMs` has passed. */
export async function stopProcess(pid: number, graceMs = 10_000): Promise<void> {
  if (!alive(pid)) return;
  signalGroup(pid, 'SIGTERM');
  try {
    await waitFor(() => !alive(pid), graceMs, `pid ${pid} to exit`);
  } catch {
    signalGroup(pid, 'SIGKILL');
    await waitFor(() => !alive(pid), 5000, `pid ${pid} to exit after SIGKILL`).catch(() => undefined);
  }
}

/** Polls `probe` every 100 ms until it is true, or throws after `timeoutMs`. */
export async function waitFor(probe: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (
      await Promise.resolve()
        .then(probe)
        .catch(() => false)
    )
      return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether something accepts a TCP connection on host:port within a second. */
export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export async function httpStatus(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel();
    return response.status;
  } catch {
    return undefined;
  }
}

/** The last lines of a log of the state folder, for error messages. */
export function tail(logDir: string, name: string, lines = 30): string {
  try {
    return readFileSync(path.join(logDir, `${name}.log`), 'utf8')
      .split('\n')
      .slice(-lines)
      .join('\n');
  } catch {
    return '(no log)';
  }
}
