/**
 * Postgres of the local cluster: one etcd, two Postgres nodes run by Patroni in
 * synchronous_mode, HAProxy (haproxy.ts) in front of whichever is primary, pgbouncer in
 * transaction mode in front of HAProxy. Postgres, Patroni and pgbouncer refuse to run as root:
 * started as root, they run as the `postgres` user.
 */
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { startPgbouncer } from '../pgbouncer';
import { alive, httpStatus, signalGroup, startDetached, tail, waitFor, type RunAs } from './processes';
import type { ClusterPorts, ClusterProcess } from './state';

/** Where Debian installs each Postgres major version (`<root>/<major>/bin`). */
export const POSTGRES_ROOT = '/usr/lib/postgresql';

/** The newest Debian Postgres installed under `root`, or undefined. */
export function findPostgresBinDir(root = POSTGRES_ROOT): string | undefined {
  const majors = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)) : [];
  const major = majors.map(Number).sort((a, b) => b - a)[0];
  return major === undefined ? undefined : path.join(root, String(major), 'bin');
}

function postgresBinDir(): string {
  const found = findPostgresBinDir();
  if (found === undefined) throw new Error(`no Postgres under ${POSTGRES_ROOT} (apt-get install postgresql)`);
  return found;
}

function ownedDir(dir: string, runAs: RunAs | undefined): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  return dir;
}

export function startEtcd(dir: string, ports: ClusterPorts, logDir: string): ClusterProcess {
  const client = `http://127.0.0.1:${ports.etcdClient}`;
  const peer = `http://127.0.0.1:${ports.etcdPeer}`;
  const pid = startDetached({
    name: 'etcd',
    command: 'etcd',
    args: [
      ...['--name', 'lc', '--data-dir', path.join(dir, 'etcd')],
      ...['--listen-client-urls', client, '--advertise-client-urls', client],
      ...['--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `lc=${peer}`],
    ],
    logDir,
  });
  return { name: 'etcd', component: 'etcd', pid, port: ports.etcdClient };
}

export async function waitForEtcd(ports: ClusterPorts, logDir: string): Promise<void> {
  await waitFor(async () => (await httpStatus(`http://127.0.0.1:${ports.etcdClient}/health`)) === 200, 30_000, 'etcd').catch(
    (error: Error) => {
      throw new Error(`${error.message}\n${tail(logDir, 'etcd')}`);
    },
  );
}

/** Patroni's settings for node `index` (0-based): fast failover (ttl 20 s, loop 2 s), synchronous_mode. */
function patroniConfig(dir: string, ports: ClusterPorts, index: number, scope: string): Record<string, unknown> {
  const node = ports.postgres[index] as { postgres: number; rest: number };
  const nodeDir = path.join(dir, `postgres-${index + 1}`);
  return {
    scope,
    namespace: '/local-cluster/',
    name: `pg${index + 1}`,
    restapi: { listen: `127.0.0.1:${node.rest}`, connect_address: `127.0.0.1:${node.rest}` },
    etcd3: { hosts: [`127.0.0.1:${ports.etcdClient}`] },
    bootstrap: {
      dcs: {
        ttl: 20,
        loop_wait: 2,
        retry_timeout: 5,
        maximum_lag_on_failover: 1048576,
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: true,
          parameters: { max_connections: 200, wal_level: 'replica', hot_standby: 'on', wal_log_hints: 'on', max_wal_senders: 10 },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C' }],
    },
    postgresql: {
      listen: `127.0.0.1:${node.postgres}`,
      connect_address: `127.0.0.1:${node.postgres}`,
      data_dir: path.join(nodeDir, 'data'),
      bin_dir: postgresBinDir(),
      pgpass: path.join(nodeDir, 'pgpass'),
      authentication: {
        superuser: { username: 'postgres', password: 'postgres' },
        replication: { username: 'replicator', password: 'replicator' },
      },
      // Loopback only, and trusted: a developer's cluster, like the shared test server.
      pg_hba: ['local all all trust', 'host replication replicator 127.0.0.1/32 trust', 'host all all 127.0.0.1/32 trust'],
      parameters: { unix_socket_directories: nodeDir },
    },
  };
}

export function postgresDataDir(dir: string, index: number): string {
  return path.join(dir, `postgres-${index + 1}`, 'data');
}

export function startPatroni(dir: string, ports: ClusterPorts, logDir: string, runAs: RunAs | undefined): ClusterProcess[] {
  const scope = `lc-${ports.etcdClient}`;
  return ports.postgres.map((_node, index) => {
    const nodeDir = ownedDir(path.join(dir, `postgres-${index + 1}`), runAs);
    writeFileSync(path.join(nodeDir, 'patroni.yml'), stringify(patroniConfig(dir, ports, index, scope)));
    return startPatroniNode(dir, ports, logDir, runAs, index);
  });
}

/** Starts node `index`'s Patroni on the configuration written by startPatroni (again after a kill: it rejoins, rewound). */
export function startPatroniNode(
  dir: string,
  ports: ClusterPorts,
  logDir: string,
  runAs: RunAs | undefined,
  index: number,
): ClusterProcess {
  const nodeDir = path.join(dir, `postgres-${index + 1}`);
  const name = `patroni-${index + 1}`;
  const pid = startDetached({ name, command: 'patroni', args: [path.join(nodeDir, 'patroni.yml')], cwd: nodeDir, logDir, runAs });
  return { name, component: 'postgres' as const, pid, port: ports.postgres[index]?.postgres };
}

/** Patroni's role check (`/primary`, `/replica`, `/sync`) for every node, 200 or not. */
export async function patroniRoles(ports: ClusterPorts, check: 'primary' | 'replica' | 'sync'): Promise<boolean[]> {
  return Promise.all(ports.postgres.map(async (node) => (await httpStatus(`http://127.0.0.1:${node.rest}/${check}`)) === 200));
}

/** Waits for a primary and a synchronous standby: before that, a failover has nowhere to go. */
export async function waitForPatroni(ports: ClusterPorts, logDir: string): Promise<void> {
  await waitFor(
    async () => (await patroniRoles(ports, 'primary')).some(Boolean) && (await patroniRoles(ports, 'sync')).some(Boolean),
    120_000,
    'a Patroni primary and a synchronous standby',
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${tail(logDir, 'patroni-1')}\n${tail(logDir, 'patroni-2')}`);
  });
}

/**
 * pgbouncer in front of HAProxy's primary front, written and started by the tests' own starter
 * (`startPgbouncer` of @platform/testing), its log in `<logDir>/pgbouncer.log`. It outlives
 * `pnpm cluster up`: `down` stops it by the pid recorded in the state file.
 */
export async function startClusterPgbouncer(dir: string, ports: ClusterPorts, logDir: string): Promise<ClusterProcess> {
  const bouncer = await startPgbouncer({
    dir: path.join(dir, 'pgbouncer'),
    port: ports.pgbouncer,
    target: `postgres://postgres@127.0.0.1:${ports.postgresPrimary}/postgres`,
    // The server connections both replicas of every service share.
    poolSize: 40,
    logFile: path.join(logDir, 'pgbouncer.log'),
    keepAfterExit: true,
  });
  return { name: 'pgbouncer', component: 'pgbouncer', pid: bouncer.pid, port: bouncer.port };
}

/** The pid of node `index`'s postmaster (`postmaster.pid`), while it runs. */
export function postmasterPid(dir: string, index: number): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(postgresDataDir(dir, index), 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Patroni detaches the postmaster into a session of its own: `down` stops it too. */
export function stopPostmasters(dir: string, nodes: number, signal: NodeJS.Signals): number[] {
  const pids: number[] = [];
  for (let index = 0; index < nodes; index += 1) {
    const pid = postmasterPid(dir, index);
    if (pid === undefined) continue;
    signalGroup(pid, signal);
    pids.push(pid);
  }
  return pids;
}

/**
 * Node `index` dies as a machine would: SIGKILL to its Patroni (so nobody renews the leader key
 * or restarts Postgres) and to its postmaster's process group (Postgres and every backend).
 * The other node's Patroni takes over once the leader key's ttl has passed.
 */
export function killPostgresNode(dir: string, patroniPid: number, index: number): void {
  const postmaster = postmasterPid(dir, index);
  signalGroup(patroniPid, 'SIGKILL');
  if (postmaster !== undefined) signalGroup(postmaster, 'SIGKILL');
}
