/**
 * Redis of the local cluster: a Redis Cluster of 3 masters and 3 replicas (`redis-cli --cluster
 * create`), or, while the services cannot name a cluster yet (they do not read
 * REDIS_CLUSTER_NODES: services.ts, capabilities()), one redis-server of the cluster's own.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { portOpen, startDetached, tail, waitFor } from './processes';
import type { ClusterPorts, ClusterProcess } from './state';

const run = promisify(execFile);

export type RedisMode = 'single' | 'cluster';

export function startRedis(dir: string, ports: ClusterPorts, logDir: string, mode: RedisMode): ClusterProcess[] {
  const nodes = mode === 'cluster' ? ports.redis : ports.redis.slice(0, 1);
  return nodes.map((_node, index) => startRedisNode(dir, ports, logDir, mode, index));
}

/** Starts node `index` (0-based); started again after a kill, it finds its cluster in its nodes.conf, its data gone. */
export function startRedisNode(dir: string, ports: ClusterPorts, logDir: string, mode: RedisMode, index: number): ClusterProcess {
  const node = ports.redis[index] as { port: number; bus: number };
  const nodeDir = path.join(dir, `redis-${index + 1}`);
  mkdirSync(nodeDir, { recursive: true });
  const clusterArgs =
    mode === 'cluster'
      ? [
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(node.bus),
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '5000',
        ]
      : [];
  const name = `redis-${index + 1}`;
  const pid = startDetached({
    name,
    command: 'redis-server',
    args: [
      ...['--port', String(node.port), '--bind', '127.0.0.1', '--dir', nodeDir],
      ...['--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
      ...clusterArgs,
    ],
    logDir,
  });
  return { name, component: 'redis' as const, pid, port: node.port };
}

export async function formRedis(ports: ClusterPorts, logDir: string, mode: RedisMode): Promise<void> {
  const nodes = mode === 'cluster' ? ports.redis : ports.redis.slice(0, 1);
  await Promise.all(
    nodes.map((node, index) =>
      waitFor(() => portOpen(node.port), 30_000, `redis node ${index + 1}`).catch((error: Error) => {
        throw new Error(`${error.message}\n${tail(logDir, `redis-${index + 1}`)}`);
      }),
    ),
  );
  if (mode !== 'cluster') return;
  await run('redis-cli', [
    '--cluster',
    'create',
    ...nodes.map((node) => `127.0.0.1:${node.port}`),
    '--cluster-replicas',
    '1',
    '--cluster-yes',
  ]);
  await waitFor(
    async () => {
      const { stdout: info } = await run('redis-cli', ['-p', String(nodes[0]?.port), 'cluster', 'info']);
      // Every replica known as one: `create` assigns them just after the slots.
      const { stdout: members } = await run('redis-cli', ['-p', String(nodes[0]?.port), 'cluster', 'nodes']);
      return (
        info.includes('cluster_state:ok') && members.split('\n').filter((line) => line.includes(' slave ')).length === nodes.length / 2
      );
    },
    30_000,
    'the Redis Cluster to be ok with a replica per master',
  );
}

/** What the services are given: REDIS_CLUSTER_NODES (seeds) or REDIS_URL. */
export function redisEnv(ports: ClusterPorts, mode: RedisMode): Record<string, string> {
  if (mode === 'cluster') return { REDIS_CLUSTER_NODES: ports.redis.map((node) => `127.0.0.1:${node.port}`).join(',') };
  return { REDIS_URL: `redis://127.0.0.1:${ports.redis[0]?.port}` };
}
