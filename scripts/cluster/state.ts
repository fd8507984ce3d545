/**
 * The cluster's ports and its state file (`<dir>/state.json`): what `up` started (pids), where
 * (ports, folders) and what the services were told (environment), so that `down` and `status`
 * run from another process.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

/** Default first port of `pnpm cluster up` (CLUSTER_BASE_PORT or --base-port changes it). */
export const DEFAULT_BASE_PORT = 25000;

export const HTTP_SERVICES = ['auth', 'user', 'categorization'] as const;
export type HttpService = (typeof HTTP_SERVICES)[number];
export const REPLICAS = 2;

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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Every port of the cluster: consecutive blocks from `base` (a developer's fixed layout, see
 * docs/cluster.md), or, without a base, ports the OS reports free (tests running side by side).
 */
export async function allocatePorts(base: number | undefined): Promise<ClusterPorts> {
  const taken = new Set<number>();
  const at = async (offset: number): Promise<number> => {
    if (base !== undefined) return base + offset;
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  const pairs = async <K extends string>(keys: [K, K], offsets: number[], step: number) => {
    const out: Array<Record<K, number>> = [];
    for (const offset of offsets) out.push({ [keys[0]]: await at(offset), [keys[1]]: await at(offset + step) } as Record<K, number>);
    return out;
  };
  const list = async (offsets: number[]) => Promise.all(offsets.map(at));
  return {
    etcdClient: await at(0),
    etcdPeer: await at(1),
    postgres: await pairs(['postgres', 'rest'], [2, 4], 1),
    postgresPrimary: await at(6),
    pgbouncer: await at(7),
    rabbitmq: await pairs(['amqp', 'dist'], [10, 11, 12], 3),
    redis: await pairs(['port', 'bus'], [20, 21, 22, 23, 24, 25], 10),
    front: { auth: await at(40), user: await at(41), categorization: await at(42) },
    haproxyStats: await at(43),
    replicas: {
      auth: await list([50, 51]),
      user: await list([52, 53]),
      categorization: await list([54, 55]),
      notifier: await list([56, 57]),
    },
    smtp: await at(60),
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
  return path.resolve(process.env.CLUSTER_DIR ?? path.join(__dirname, '../../.cluster'));
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
