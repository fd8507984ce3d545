import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './tcp-proxy';

const run = promisify(execFile);

/** Where Debian's pgbouncer is; PGBOUNCER_BIN overrides. */
export const PGBOUNCER_BIN = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

export interface PgbouncerOptions {
  /** A folder of the caller's own for the config, auth file, log and pid file (created; /tmp/<name>-*). */
  dir: string;
  /** Where pgbouncer listens; default a free loopback port. */
  port?: number;
  /** Any database URL on the Postgres server behind it (`postgres://user@host:port/db`). */
  target: string;
  /** Server connections per database and user (default 5: fewer than a service's pool, so clients share them). */
  poolSize?: number;
  /** Server connections of one user over every database (default 0: no cap). */
  maxUserConnections?: number;
  /** Where pgbouncer logs (created, writable by the user it runs as); default `<dir>/pgbouncer.log`. */
  logFile?: string;
  /**
   * Leave it running when this process exits (the local cluster's: `pnpm cluster down` stops it by
   * its pid). Default: a process exit stops it and removes `dir`.
   */
  keepAfterExit?: boolean;
}

/** A pgbouncer in transaction mode in front of a Postgres server (CONTRACT §1, "Scale-out engines"). */
export interface Pgbouncer {
  port: number;
  /** The daemon's pid (from its pid file). */
  pid: number;
  /** The target's database through pgbouncer. */
  url: string;
  /** Any database URL on the target server, rewritten to go through pgbouncer. */
  urlOf(databaseUrl: string): string;
  /** Logs the pgbouncer wrote so far (its refusals name the cause). */
  log(): Promise<string>;
  /** Stops this pgbouncer (its pid only) and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

const asRoot = (): boolean => process.getuid?.() === 0;

/** pgbouncer refuses to run as root: the folder and its files go to the `postgres` user then. */
async function handOver(dir: string): Promise<void> {
  if (!asRoot()) return;
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  await chown(dir, Number(uid), Number(gid));
}

function configOf(options: PgbouncerOptions, port: number, dir: string, logFile: string): string {
  const target = new URL(options.target);
  return [
    '[databases]',
    // Every database name reaches the same-named database on the target (tests create their own).
    `* = host=${target.hostname} port=${target.port || '5432'}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    // No Unix socket: two pgbouncers on one machine would fight over /tmp/.s.PGSQL.<port>.
    "unix_socket_dir = ''",
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'userlist.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${options.poolSize ?? 5}`,
    `max_user_connections = ${options.maxUserConnections ?? 0}`,
    'max_client_conn = 2000',
    // Server connections to a test's dropped database go away soon.
    'server_idle_timeout = 5',
    // A server that went away (a restart, the cluster's failover) is logged into again at once, not after 15 s.
    'server_login_retry = 1',
    // A request's 5 s (CONTRACT §1, docs/operations.md "Timeouts"): a client waits at most 2 s for
    // a server connection (under the services' 2.5 s query timeout, so pgbouncer's error comes
    // first), and a server that does not accept within 1 s counts as down.
    'query_wait_timeout = 2',
    'server_connect_timeout = 1',
    'ignore_startup_parameters = extra_float_digits,options',
    `logfile = ${logFile}`,
    `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
    '',
  ].join('\n');
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`pgbouncer: ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts Debian's pgbouncer (1.18) as a daemon in transaction mode, `auth_type = trust`, in front
 * of `target`'s server; as the `postgres` user when this process is root. Resolves once it
 * accepts connections. A process exit stops it too, unless `keepAfterExit`. The one place that
 * writes pgbouncer's config and starts it: the tests' and the local cluster's (src/cluster).
 */
export async function startPgbouncer(options: PgbouncerOptions): Promise<Pgbouncer> {
  const dir = path.resolve(options.dir);
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o700);
  const port = options.port ?? (await freePort());
  const user = decodeURIComponent(new URL(options.target).username || 'postgres');
  const ini = path.join(dir, 'pgbouncer.ini');
  const logFile = path.resolve(options.logFile ?? path.join(dir, 'pgbouncer.log'));
  await writeFile(path.join(dir, 'userlist.txt'), `"${user}" ""\n`);
  await writeFile(ini, configOf(options, port, dir, logFile));
  await writeFile(logFile, '', { flag: 'a' });
  await handOver(dir);
  for (const file of [path.join(dir, 'userlist.txt'), ini, logFile]) await handOver(file);
  const log = (): Promise<string> => readFile(logFile, 'utf8').catch(() => '');
  const command = asRoot() ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER_BIN, '-d', ini]] : [PGBOUNCER_BIN, ['-d', ini]];
  await run(command[0] as string, command[1] as string[]);
  // The daemon listens before it writes its pid file: ready once both are there, and the pid alive
  // (a port that answers without it is another process's).
  const pidFile = path.join(dir, 'pgbouncer.pid');
  let pid = 0;
  const started = async (): Promise<boolean> => {
    pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
    return pid > 0 && alive(pid) && (await answers(port));
  };
  await until(started, `not running and listening on ${port}`).catch(async (error: Error) => {
    throw new Error(`${error.message}\n${await log()}`);
  });
  const killOnExit = (): void => {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  if (!options.keepAfterExit) process.once('exit', killOnExit);
  const urlOf = (databaseUrl: string): string => {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    return url.toString();
  };
  let stopped: Promise<void> | undefined;
  return {
    port,
    pid,
    url: urlOf(options.target),
    urlOf,
    log,
    stop() {
      stopped ??= (async () => {
        process.off('exit', killOnExit);
        // SIGTERM: immediate shutdown (client connections are closed).
        if (alive(pid)) process.kill(pid, 'SIGTERM');
        await until(() => Promise.resolve(!alive(pid)), `pid ${pid} did not exit`);
        await rm(dir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}
