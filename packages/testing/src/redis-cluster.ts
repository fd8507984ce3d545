import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { ask, askRaw, until } from './redis-cluster-node';

/** One redis-server of a LocalRedisCluster. */
export interface RedisClusterNodeProcess {
  host: string;
  port: number;
  /** `host:port`, as REDIS_CLUSTER_NODES and CLUSTER NODES name it. */
  address: string;
  /** False once killed. */
  readonly alive: boolean;
}

/** A Redis Cluster of real redis-server processes (Debian's redis-server and redis-cli). */
export interface LocalRedisCluster {
  nodes: readonly RedisClusterNodeProcess[];
  /** The seed list for REDIS_CLUSTER_NODES: every node, comma-separated. */
  seeds: string;
  /** The live nodes that are masters now, as the cluster sees them. */
  masters(): Promise<RedisClusterNodeProcess[]>;
  /** The master serving a key's slot now. */
  masterOf(key: string): Promise<RedisClusterNodeProcess>;
  /** The live replica that follows `master` now. */
  replicaOf(master: RedisClusterNodeProcess): Promise<RedisClusterNodeProcess>;
  /**
   * Cuts a replica off its master's stream while the cluster still counts it a healthy replica:
   * it re-authenticates as a user the master does not know, so every resync fails. Resolves once
   * the link is down and the master has no replica left, so every write from then on is on the
   * master alone.
   */
  cutOff(replica: RedisClusterNodeProcess): Promise<void>;
  /** One read on this node itself (a replica answers from its own data instead of redirecting). */
  readOn(node: RedisClusterNodeProcess, ...args: string[]): Promise<unknown>;
  /** SIGKILL: the node goes away with everything it held, at once. Resolves once it has exited. */
  kill(node: RedisClusterNodeProcess): Promise<void>;
  /** Starts a killed node again on its port and folder: it rejoins (nodes.conf) without its data. Resolves once it answers. */
  restart(node: RedisClusterNodeProcess): Promise<void>;
  /** Resolves once every slot is served by a live master and every live node reports cluster_state:ok. */
  settled(timeoutMs?: number): Promise<void>;
  /** Kills every node and removes the data folder. */
  stop(): Promise<void>;
}

export interface StartRedisClusterOptions {
  /** A folder of the caller's (e.g. /tmp/<name>-redis-cluster); each node gets a subfolder. Removed by stop(). */
  dir: string;
  /** Six ports (3 masters, 3 replicas); default: free ports from the OS. */
  ports?: readonly number[];
  /** cluster-node-timeout (ms): how long a silent master goes before its replica takes over. Default 2000. */
  nodeTimeoutMs?: number;
}

const NODE_COUNT = 6;
const HOST = '127.0.0.1';
const run = promisify(execFile);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

function startNode(dir: string, port: number, nodeTimeoutMs: number): ChildProcess {
  const nodeDir = path.join(dir, String(port));
  mkdirSync(nodeDir, { recursive: true });
  // No persistence: a node that restarts comes back empty (the case CONTRACT §3 guards against).
  const args = [
    ...['--port', String(port), '--bind', HOST, '--dir', nodeDir, '--save', '', '--appendonly', 'no'],
    ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(nodeTimeoutMs)],
    // A replica takes over however long it was cut off from its master (tests kill masters at will).
    ...['--cluster-replica-validity-factor', '0'],
  ];
  return spawn('redis-server', args, { stdio: 'ignore' });
}

interface NodeLine {
  address: string;
  flags: string[];
  slots: boolean;
}

/** CLUSTER NODES as one node sees it. */
async function clusterNodes(port: number): Promise<NodeLine[]> {
  const text = await ask(port, 'CLUSTER', 'NODES');
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const fields = line.split(' ');
      return { address: (fields[1] ?? '').split('@')[0] as string, flags: (fields[2] ?? '').split(','), slots: fields.length > 8 };
    });
}

/**
 * Starts a Redis Cluster of 3 masters and 3 replicas (`redis-cli --cluster create …
 * --cluster-replicas 1`) and resolves once every node reports cluster_state:ok and every replica
 * is in sync with its master.
 */
export async function startRedisCluster(options: StartRedisClusterOptions): Promise<LocalRedisCluster> {
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 2000;
  const ports = options.ports ? [...options.ports] : await Promise.all(Array.from({ length: NODE_COUNT }, freePort));
  if (ports.length !== NODE_COUNT) throw new Error(`a local Redis Cluster takes ${NODE_COUNT} ports`);
  rmSync(options.dir, { recursive: true, force: true });
  const children = new Map<number, ChildProcess>();
  const nodes = ports.map((port): RedisClusterNodeProcess => ({
    host: HOST,
    port,
    address: `${HOST}:${port}`,
    get alive() {
      const child = children.get(port);
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
  }));
  const byAddress = (address: string): RedisClusterNodeProcess | undefined => nodes.find((node) => node.address === address);
  const live = (): RedisClusterNodeProcess[] => nodes.filter((node) => node.alive);

  const stop = async (): Promise<void> => {
    for (const child of children.values()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all([...children.values()].map(exited));
    rmSync(options.dir, { recursive: true, force: true });
  };

  // Every slot served by a master that is alive, as every live node sees it.
  const covered = async (port: number): Promise<boolean> => {
    if (!(await ask(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
    const ranges = (await askRaw(port, ['CLUSTER', 'SLOTS'])) as Array<[number, number, [string, number]]>;
    let slots = 0;
    for (const [start, end, [host, masterPort]] of ranges) {
      if (!byAddress(`${host}:${masterPort}`)?.alive) return false;
      slots += end - start + 1;
    }
    return slots === 16384;
  };

  const settled = async (timeoutMs = 30_000): Promise<void> => {
    await until(
      async () => (await Promise.all(live().map((node) => covered(node.port)))).every(Boolean),
      timeoutMs,
      'cluster_state:ok on every node, every slot on a live master',
    );
  };

  try {
    for (const port of ports) children.set(port, startNode(options.dir, port, nodeTimeoutMs));
    await until(
      async () => (await Promise.all(ports.map((port) => ask(port, 'PING')))).every((pong) => pong === 'PONG'),
      10_000,
      'nodes to start',
    );
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((node) => node.address), '--cluster-replicas', '1', '--cluster-yes']);
    await settled();
    await until(
      async () => {
        for (const node of nodes) {
          const info = await ask(node.port, 'INFO', 'replication');
          if (info.includes('role:slave') && !info.includes('master_link_status:up')) return false;
          if (!(await ask(node.port, 'CLUSTER', 'INFO')).includes(`cluster_known_nodes:${NODE_COUNT}`)) return false;
        }
        return true;
      },
      30_000,
      'replicas in sync with their masters',
    );
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    nodes,
    seeds: nodes.map((node) => node.address).join(','),
    async masters() {
      const [first] = live();
      if (!first) return [];
      const view = await clusterNodes(first.port);
      return view
        .filter((line) => line.flags.includes('master') && !line.flags.some((flag) => flag.startsWith('fail')))
        .flatMap((line) => {
          const node = byAddress(line.address);
          return node?.alive ? [node] : [];
        });
    },
    async masterOf(key) {
      const [first] = live();
      if (!first) throw new Error('no live node');
      const slot = Number(await ask(first.port, 'CLUSTER', 'KEYSLOT', key));
      const ranges = (await askRaw(first.port, ['CLUSTER', 'SLOTS'])) as Array<[number, number, [string, number]]>;
      const range = ranges.find(([start, end]) => slot >= start && slot <= end);
      const node = range ? byAddress(`${range[2][0]}:${range[2][1]}`) : undefined;
      if (!node) throw new Error(`no master serves slot ${slot}`);
      return node;
    },
    async replicaOf(master) {
      const id = await ask(master.port, 'CLUSTER', 'MYID');
      const lines = (await askRaw(master.port, ['CLUSTER', 'REPLICAS', id])) as string[];
      const replica = lines.map((line) => byAddress((line.split(' ')[1] ?? '').split('@')[0] as string)).find((node) => node?.alive);
      if (!replica) throw new Error(`no live replica of ${master.address}`);
      return replica;
    },
    async cutOff(replica) {
      await askRaw(
        replica.port,
        ['CONFIG', 'SET', 'masteruser', 'no-such-replication-user'],
        ['CONFIG', 'SET', 'masterauth', 'no-such-password'],
        ['CLIENT', 'KILL', 'TYPE', 'master'],
      );
      const masterPort = Number(/^master_port:(\d+)/m.exec(await ask(replica.port, 'INFO', 'replication'))?.[1]);
      await until(
        async () =>
          (await ask(replica.port, 'INFO', 'replication')).includes('master_link_status:down') &&
          (await ask(masterPort, 'INFO', 'replication')).includes('connected_slaves:0'),
        10_000,
        `${replica.address} cut off its master`,
      );
    },
    readOn: (node, ...args) => askRaw(node.port, ['READONLY'], args),
    async kill(node) {
      const child = children.get(node.port);
      if (!child) throw new Error(`no node on port ${node.port}`);
      child.kill('SIGKILL');
      await exited(child);
    },
    async restart(node) {
      if (node.alive) throw new Error(`node on port ${node.port} is running`);
      children.set(node.port, startNode(options.dir, node.port, nodeTimeoutMs));
      await until(async () => (await ask(node.port, 'PING')) === 'PONG', 10_000, `node ${node.address} to start again`);
    },
    settled,
    stop,
  };
}
