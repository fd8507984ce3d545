/**
 * The parts of the local cluster the nemesis strikes (@platform/testing/cluster): for a fault's
 * target, the process groups to signal, how to start the part again after a kill, and when it is
 * healthy.
 * A restarted part's pid goes into the cluster's state file, so that `pnpm cluster down` stops it.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  alive,
  type ClusterProcess,
  type ClusterState,
  httpStatus,
  patroniRoles,
  portOpen,
  postgresUser,
  postmasterPid,
  rabbitmqctl,
  rabbitPid,
  restartReplica,
  startClusterPgbouncer,
  startPatroniNode,
  startRabbitNode,
  startRedisNode,
  writeState,
} from '@platform/testing/cluster';
import { SERVICE_REPLICAS, type Fault } from './schedule';

const run = promisify(execFile);

export interface Part {
  /** e.g. `redis-3 (master)`. */
  label: string;
  /** The process groups (or lone processes) that make the part: signalled together. */
  pids(): number[];
  /** Its listening ports, which a partition cuts off (links.ts). */
  ports: number[];
  /** Starts it again after a kill. */
  restart(): void | Promise<void>;
  healthy(): Promise<boolean>;
}

function replace(state: ClusterState, started: ClusterProcess): void {
  state.processes = state.processes.map((entry) => (entry.name === started.name ? started : entry));
  writeState(state);
}

const pidOf = (state: ClusterState, name: string): number => state.processes.find((entry) => entry.name === name)?.pid ?? -1;

async function redisRoles(state: ClusterState): Promise<Array<'master' | 'slave' | undefined>> {
  return Promise.all(
    state.ports.redis.map(async (node) => {
      const reply = await run('redis-cli', ['-p', String(node.port), 'role'], { timeout: 2000 }).catch(() => undefined);
      const role = reply?.stdout.split('\n')[0]?.trim();
      return role === 'master' || role === 'slave' ? role : undefined;
    }),
  );
}

/** Every Redis node answers, the cluster is ok, and as many replicas as masters. */
export async function redisWhole(state: ClusterState): Promise<boolean> {
  const roles = await redisRoles(state);
  if (roles.some((role) => role === undefined) || roles.filter((role) => role === 'slave').length !== roles.length / 2) return false;
  const infos = await Promise.all(
    state.ports.redis.map((node) => run('redis-cli', ['-p', String(node.port), 'cluster', 'info'], { timeout: 2000 })),
  );
  return infos.every((info) => info.stdout.includes('cluster_state:ok'));
}

export async function postgresWhole(state: ClusterState): Promise<boolean> {
  return (await patroniRoles(state.ports, 'primary')).some(Boolean) && (await patroniRoles(state.ports, 'sync')).some(Boolean);
}

export async function rabbitWhole(state: ClusterState): Promise<boolean> {
  const status = await rabbitmqctl(
    state.rabbitmqHome,
    state.rabbitmqNodes[0] as string,
    ['cluster_status', '--formatter', 'json'],
    10_000,
  ).catch(() => rabbitmqctl(state.rabbitmqHome, state.rabbitmqNodes[1] as string, ['cluster_status', '--formatter', 'json'], 10_000));
  const running = (JSON.parse(status) as { running_nodes?: string[] }).running_nodes ?? [];
  return state.rabbitmqNodes.every((node) => running.includes(node));
}

function service(state: ClusterState, logDir: string, pick: number, partition: boolean): Part {
  // A notifier listens only for its health check: a partition takes a replica behind HAProxy.
  const names = partition ? SERVICE_REPLICAS.filter((name) => !name.startsWith('notifier')) : SERVICE_REPLICAS;
  const name = names[pick % names.length] as string;
  const [kind, number] = name.split('-') as [keyof ClusterState['ports']['replicas'], string];
  const port = state.ports.replicas[kind][Number(number) - 1] as number;
  return {
    label: name,
    ports: [port],
    pids: () => [pidOf(state, name)],
    restart: () => replace(state, restartReplica(state.ports, state.env, logDir, name)),
    healthy: async () => (await httpStatus(`http://127.0.0.1:${port}/health/ready`)) === 200,
  };
}

async function redis(state: ClusterState, logDir: string, role: 'master' | 'slave', pick: number): Promise<Part> {
  const roles = await redisRoles(state);
  const candidates = roles.flatMap((found, index) => (found === role ? [index] : []));
  const index = candidates[pick % candidates.length] ?? pick % roles.length;
  const name = `redis-${index + 1}`;
  return {
    label: `${name} (${role === 'slave' ? 'replica' : 'master'})`,
    ports: [state.ports.redis[index]?.port ?? -1, state.ports.redis[index]?.bus ?? -1],
    pids: () => [pidOf(state, name)],
    restart: () => replace(state, startRedisNode(state.dir, state.ports, logDir, 'cluster', index)),
    healthy: () => redisWhole(state),
  };
}

async function postgres(state: ClusterState, logDir: string, primary: boolean): Promise<Part> {
  const primaries = await patroniRoles(state.ports, 'primary');
  const leader = Math.max(0, primaries.indexOf(true));
  const index = primary ? leader : 1 - leader;
  const name = `patroni-${index + 1}`;
  return {
    label: `${name} (${primary ? 'primary' : 'standby'})`,
    // Its Postgres (clients through HAProxy and pgbouncer, replication); Patroni keeps etcd.
    ports: [state.ports.postgres[index]?.postgres ?? -1],
    // Patroni, and the postmaster it detached into a session of its own (every backend with it).
    pids: () => [pidOf(state, name), postmasterPid(state.dir, index) ?? -1].filter((pid) => pid > 0),
    restart: () => replace(state, startPatroniNode(state.dir, state.ports, logDir, postgresUser(), index)),
    healthy: () => postgresWhole(state),
  };
}

function rabbit(state: ClusterState, logDir: string, pick: number): Part {
  const index = pick % state.rabbitmqNodes.length;
  const name = `rabbitmq-${index + 1}`;
  return {
    label: name,
    ports: [state.ports.rabbitmq[index]?.amqp ?? -1, state.ports.rabbitmq[index]?.dist ?? -1],
    pids: () => [pidOf(state, name), rabbitPid(state.dir, index) ?? -1].filter((pid) => pid > 0 && alive(pid)),
    restart: () => replace(state, startRabbitNode(state.dir, state.ports, logDir, index)),
    healthy: async () => (await portOpen(state.ports.rabbitmq[index]?.amqp as number)) && rabbitWhole(state),
  };
}

function pgbouncer(state: ClusterState, logDir: string): Part {
  return {
    label: 'pgbouncer',
    ports: [state.ports.pgbouncer],
    pids: () => [pidOf(state, 'pgbouncer')],
    restart: async () => replace(state, await startClusterPgbouncer(state.dir, state.ports, logDir)),
    healthy: () => portOpen(state.ports.pgbouncer),
  };
}

export async function partOf(state: ClusterState, fault: Fault): Promise<Part> {
  const logDir = path.join(state.dir, 'logs');
  switch (fault.target) {
    case 'service':
      return service(state, logDir, fault.pick, fault.kind === 'partition');
    case 'redis-master':
      return redis(state, logDir, 'master', fault.pick);
    case 'redis-replica':
      return redis(state, logDir, 'slave', fault.pick);
    case 'postgres-primary':
      return postgres(state, logDir, true);
    case 'postgres-standby':
      return postgres(state, logDir, false);
    case 'rabbitmq':
      return rabbit(state, logDir, fault.pick);
    case 'pgbouncer':
      return pgbouncer(state, logDir);
  }
}
