/**
 * A small fleet for the rolling-upgrade test: 2 auth and 2 user replicas behind one HAProxy (the
 * local cluster's fronts, with a runtime API socket to drain a server), on a private database of
 * the machine's Postgres and the machine's Redis and RabbitMQ (a key prefix and an exchange of
 * its own). Each replica runs from a release's source tree: the previous release's, unpacked
 * from git and installed offline, or this checkout.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, runPnpm, startServiceProcess, testServers, uniqueId, type ServiceProcess } from '@platform/testing';
import {
  haproxyCommand,
  haproxyDefaults,
  haproxyStat,
  runtimeApi,
  serviceSection,
  startDetached,
  stopProcess,
  waitFor,
  writeUnavailableFile,
} from '@platform/testing/cluster';

export const ROOT = path.resolve(__dirname, '../..');
export const FLEET_SERVICES = ['auth', 'user'] as const;
export type FleetService = (typeof FLEET_SERVICES)[number];
const PORT_VARIABLE: Record<FleetService, string> = { auth: 'AUTH_PORT', user: 'USER_PORT' };
/** Ports of this file's processes: a range no other test uses. */
const PORTS = { from: 21_400, to: 21_449 };

/** A release's source tree at `commit`, unpacked beside the checkout and installed from the pnpm store. */
export function unpackRelease(commit: string, into: string): string {
  const dir = path.join(into, `release-${commit.slice(0, 12)}`);
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', '--format=tar', commit], { cwd: ROOT, maxBuffer: 512 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  runPnpm(['install', '--offline', '--frozen-lockfile'], dir);
  return dir;
}

export interface HaproxyServerState {
  status: string;
  /** Sessions open on the server now. */
  sessions: number;
}

export interface Fleet {
  /** HAProxy's front of a service. */
  front(service: FleetService): string;
  /** A replica, bypassing HAProxy: `user-1`, `auth-2`. */
  replica(name: string): string;
  /** Every replica's name, in start order. */
  names(): string[];
  /** The source tree each replica runs from now. */
  runsFrom(name: string): string;
  env: Record<string, string>;
  /**
   * Replaces one replica with one run from `dir`: HAProxy stops sending it requests (maint) and
   * its open sessions end, SIGTERM (it must exit 0), the new one starts on the same port, and
   * HAProxy takes it back once it is ready and its check passes. Resolves with the old one's exit.
   */
  replace(name: string, dir: string): Promise<number | string>;
  server(name: string): Promise<HaproxyServerState>;
  stop(): Promise<void>;
}

export async function startFleet(options: { dir: string; databaseUrl: string; secrets: Record<string, string> }): Promise<Fleet> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'rolling-upgrade-'));
  const socket = path.join(work, 'haproxy.sock');
  const ports = {
    front: { auth: await freePort(PORTS), user: await freePort(PORTS) },
    replicas: { auth: [await freePort(PORTS), await freePort(PORTS)], user: [await freePort(PORTS), await freePort(PORTS)] },
  };
  const prefix = uniqueId('upgrade');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    HOST: '127.0.0.1',
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: testServers.redisUrl,
    AMQP_URL: testServers.amqpUrl,
    REDIS_KEY_PREFIX: `${prefix}:`,
    BALANCE_EXCHANGE: `test.${prefix}`,
    AUTH_URL: `http://127.0.0.1:${ports.front.auth}`,
    USER_URL: `http://127.0.0.1:${ports.front.user}`,
    LOG_LEVEL: 'warn',
    ...options.secrets,
  };
  const config = [
    ...haproxyDefaults(writeUnavailableFile(work), [runtimeApi(socket)]),
    ...FLEET_SERVICES.flatMap((service) => serviceSection(service, ports.front[service], ports.replicas[service])),
    '',
  ].join('\n');
  writeFileSync(path.join(work, 'haproxy.cfg'), config);
  const haproxy = startDetached({ name: 'haproxy', command: 'haproxy', args: ['-db', '-f', path.join(work, 'haproxy.cfg')], logDir: work });

  const replicas = new Map<string, { process: ServiceProcess; dir: string; port: number }>();
  const start = async (name: string, dir: string): Promise<void> => {
    const [service, number] = name.split('-') as [FleetService, string];
    const port = ports.replicas[service][Number(number) - 1] as number;
    const process = await startServiceProcess({
      script: `services/${service}/src/main.ts`,
      cwd: dir,
      port,
      env: { ...env, [PORT_VARIABLE[service]]: String(port) },
    });
    replicas.set(name, { process, dir, port });
  };
  const names = FLEET_SERVICES.flatMap((service) => [`${service}-1`, `${service}-2`]);
  const server = async (name: string): Promise<HaproxyServerState> => {
    const column = await haproxyStat(socket, name.split('-')[0] as string, name);
    return { status: column('status'), sessions: Number(column('scur')) };
  };
  const backend = (name: string): string => `${name.split('-')[0]}/${name}`;
  const fleet: Fleet = {
    env,
    front: (service) => `http://127.0.0.1:${ports.front[service]}`,
    replica: (name) => `http://127.0.0.1:${replicas.get(name)?.port ?? 0}`,
    names: () => names,
    runsFrom: (name) => replicas.get(name)?.dir ?? '',
    server,
    async replace(name, dir) {
      const old = replicas.get(name);
      if (!old) throw new Error(`no replica ${name}`);
      await haproxyCommand(socket, `set server ${backend(name)} state maint`);
      await waitFor(async () => (await server(name)).sessions === 0, 30_000, `${name}'s sessions to end`);
      const exit = await old.process.stop(10_000);
      await start(name, dir);
      await haproxyCommand(socket, `set server ${backend(name)} state ready`);
      await waitFor(async () => (await server(name)).status === 'UP', 30_000, `HAProxy to count ${name} UP`);
      return exit;
    },
    async stop() {
      await Promise.all([...replicas.values()].map((replica) => replica.process.stop(10_000)));
      await stopProcess(haproxy, 5000);
      rmSync(work, { recursive: true, force: true });
    },
  };
  try {
    await waitFor(async () => (await haproxyCommand(socket, 'show info')).includes('Name: HAProxy'), 10_000, 'HAProxy');
    // The user replicas first: they migrate the database (the release's own schema) as they start.
    await Promise.all(['user-1', 'user-2'].map((name) => start(name, options.dir)));
    await Promise.all(['auth-1', 'auth-2'].map((name) => start(name, options.dir)));
    for (const name of names) await waitFor(async () => (await server(name)).status === 'UP', 30_000, `HAProxy to count ${name} UP`);
  } catch (error) {
    await fleet.stop();
    throw error;
  }
  return fleet;
}
