/**
 * The cluster's ports and its state file (`<dir>/state.json`): what `up` started (pids), where
 * (ports, folders) and what the services were told (environment), so that `down` and `status`
 * run from another process.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isFree } from '../tcp-proxy';
import path from 'node:path';
import { REPOSITORY_ROOT } from '../platform/processes';

/** Default first port of `pnpm cluster up` (CLUSTER_BASE_PORT or --base-port changes it). */
export const DEFAULT_BASE_PORT = 25000;

export const HTTP_SERVICES = ['auth', 'user', 'categorization'] as const;
export type HttpService = (typeof HTTP_SERVICES)[number];

export interface ClusterPorts {
  etcdClient: number;
  etcdPeer: number;
  /** Per Patroni node: Postgres and Patroni's REST API. */
  postgres: Array<{ postgres: number; rest: number }>;
  /** HAProxy's front of the current primary (Patroni's `/primary` check). */
  postgresPrimary: number;
  pgbouncer: number;
  /** Per RabbitMQ node: AMQP and Erlang distribution. */
  rabbitmq: Array<{ amqp: number; dist: number }>;
  /** Per Redis node: client port and cluster bus port. */
  redis: Array<{ port: number; bus: number }>;
  /** HAProxy's round-robin front per HTTP service. */
  front: Record<HttpService, number>;
  haproxyStats: number;
  replicas: Record<HttpService | 'notifier', number[]>;
  smtp: number;
}

/** Ports from `base` to `base + PORT_BLOCK - 1` make one cluster's layout (offsets below). */
const PORT_BLOCK = 61;

/**
 * A base whose whole block is free, in 26000-32767: below Linux's ephemeral range (32768 up), so
 * that no outgoing connection of the cluster's own processes takes a port before its server binds
 * it (the OS's "free" ports are ephemeral ones), and above the default layout's 25000.
 */
async function freeBlock(): Promise<number> {
  const bases = Array.from({ length: 67 }, (_, index) => 26_000 + index * 100);
  const first = Math.floor(Math.random() * bases.length);
  for (let index = 0; index < bases.length; index += 1) {
    const base = bases[(first + index) % bases.length] as number;
    const ports = Array.from({ length: PORT_BLOCK }, (_, offset) => base + offset);
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return base;
  }
  throw new Error('no free block of ports in 26000-32767');
}

/**
 * Every port of the cluster: consecutive blocks from `base` (a developer's fixed layout, see
 * docs/cluster.md), or, without a base, from a block found free (tests, or clusters side by side).
 */
export async function allocatePorts(base: number | undefined): Promise<ClusterPorts> {
  const from = base ?? (await freeBlock());
  const at = (offset: number): number => from + offset;
  const pairs = <K extends string>(keys: [K, K], offsets: number[], step: number): Array<Record<K, number>> =>
    offsets.map((offset) => ({ [keys[0]]: at(offset), [keys[1]]: at(offset + step) }) as Record<K, number>);
  return {
    etcdClient: at(0),
    etcdPeer: at(1),
    postgres: pairs(['postgres', 'rest'], [2, 4], 1),
    postgresPrimary: at(6),
    pgbouncer: at(7),
    rabbitmq: pairs(['amqp', 'dist'], [10, 11, 12], 3),
    redis: pairs(['port', 'bus'], [20, 21, 22, 23, 24, 25], 10),
    front: { auth: at(40), user: at(41), categorization: at(42) },
    haproxyStats: at(43),
    replicas: {
      auth: [at(50), at(51)],
      user: [at(52), at(53)],
      categorization: [at(54), at(55)],
      notifier: [at(56), at(57)],
    },
    smtp: at(60),
  };
}

export interface ClusterProcess {
  /** e.g. `patroni-1`, `rabbitmq-2`, `user-1`. */
  name: string;
  component: 'etcd' | 'postgres' | 'pgbouncer' | 'rabbitmq' | 'redis' | 'haproxy' | 'smtp' | 'service';
  pid: number;
  port?: number | undefined;
}

export interface ClusterState {
  dir: string;
  startedAt: string;
  ports: ClusterPorts;
  processes: ClusterProcess[];
  /** URLs a client or test uses (the HAProxy fronts, Postgres, RabbitMQ nodes, Redis). */
  urls: Record<string, string>;
  /** The environment every service replica got (secrets included: this is the operator's own cluster). */
  env: Record<string, string>;
  /** Data folders per Patroni node (the primary's postmaster.pid is there). */
  postgresDataDirs: string[];
  rabbitmqNodes: string[];
  /** HOME holding the cluster's own Erlang cookie, for rabbitmqctl. */
  rabbitmqHome: string;
}

/** The state folder: $CLUSTER_DIR, else `.cluster/` at the repository root. */
export function defaultStateDir(): string {
  return path.resolve(process.env.CLUSTER_DIR ?? path.join(REPOSITORY_ROOT, '.cluster'));
}

export function stateFile(dir: string): string {
  return path.join(dir, 'state.json');
}

export function readState(dir: string): ClusterState | undefined {
  const file = stateFile(dir);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as ClusterState;
}

/** Written after every started process, so that a failed `up` can still be taken `down`. */
export function writeState(state: ClusterState): void {
  mkdirSync(state.dir, { recursive: true });
  const file = stateFile(state.dir);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
