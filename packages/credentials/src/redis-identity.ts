import { EventEmitter } from 'node:events';
import { Redis, type Cluster } from 'ioredis';
import { isCluster, type RedisClient } from './redis-client';

const RUN_ID = /^run_id:([0-9a-f]+)\s*$/m;
const ROLE = /^role:(\w+)\s*$/m;
const SLOT_COUNT = 16384;

/** A node the client has no connection to (yet): asked over a connection of its own, closed after. */
async function askDirectly<T>(cluster: Cluster, address: string, ask: (node: Redis) => Promise<T>): Promise<T> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  const node = new Redis({
    ...cluster.options.redisOptions,
    host,
    port,
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  node.on('error', () => undefined);
  try {
    await node.connect();
    return await ask(node);
  } finally {
    node.disconnect();
  }
}

async function runIdOf(node: Redis): Promise<string> {
  const info = await node.info('server');
  const runId = RUN_ID.exec(info)?.[1];
  if (runId === undefined) throw new Error('Redis INFO server did not name a run_id');
  return runId;
}

/**
 * The addresses of the masters that serve the cluster's slots now, as `CLUSTER SLOTS` of one node
 * names them: every slot must be served (else the check fails and is tried again).
 */
async function servingMasters(cluster: Cluster): Promise<string[]> {
  const ranges = await cluster.cluster('SLOTS');
  const masters = new Set<string>();
  let covered = 0;
  for (const [start, end, master] of ranges) {
    if (master === undefined) throw new Error(`Redis Cluster slots ${start}-${end} have no master`);
    const [host, port] = master;
    covered += end - start + 1;
    masters.add(`${host}:${port}`);
  }
  if (covered !== SLOT_COUNT) throw new Error(`Redis Cluster serves ${covered} of ${SLOT_COUNT} slots`);
  return [...masters];
}

const nodesByAddress = (cluster: Cluster): Map<string, Redis> =>
  new Map(cluster.nodes('all').map((node) => [`${node.options.host}:${node.options.port}`, node]));

/**
 * The masters that serve the cluster's slots now: every master must answer as a master (a stale
 * view, a dead or demoted node: the check fails and is tried again).
 */
async function clusterIdentity(cluster: Cluster): Promise<string> {
  const masters = await servingMasters(cluster);
  const nodes = nodesByAddress(cluster);
  const masterRunId = async (node: Redis, address: string): Promise<string> => {
    const [runId, replication] = await Promise.all([runIdOf(node), node.info('replication')]);
    if (ROLE.exec(replication)?.[1] !== 'master') throw new Error(`Redis Cluster node ${address} is not a master (yet)`);
    return runId;
  };
  const runIds = await Promise.all(
    masters.map((address) => {
      const node = nodes.get(address);
      return node ? masterRunId(node, address) : askDirectly(cluster, address, (direct) => masterRunId(direct, address));
    }),
  );
  return runIds.sort().join(',');
}

/**
 * Runs `visit` on every server that holds data: the one server, or each master serving a
 * cluster's slots (over the client's own connection, else one of its own closed after).
 */
export async function forEachMaster(redis: RedisClient, visit: (node: Redis) => Promise<void>): Promise<void> {
  if (!isCluster(redis)) return visit(redis);
  const nodes = nodesByAddress(redis);
  for (const address of await servingMasters(redis)) {
    const node = nodes.get(address);
    await (node ? visit(node) : askDirectly(redis, address, visit));
  }
}

/**
 * An id that changes whenever Redis may have lost data (CONTRACT §3): the server's run_id, or on
 * a Redis Cluster the run_ids of every master serving its slots (a failover to a replica, or a
 * master restarted without its data, changes one of them).
 */
export function redisIdentity(redis: RedisClient): Promise<string> {
  return isCluster(redis) ? clusterIdentity(redis) : runIdOf(redis);
}

/**
 * What the access store's loss detection listens to (`close`: the data may be gone from now on;
 * `ready`: check the server(s) again). One server: its connection's own events. A cluster: the
 * client's, and every node connection lost or added and every slot refresh (a master SIGKILLed
 * ends its connection at once, long before the cluster promotes its replica), plus a check every
 * `pollMs` for what no event shows (a partitioned master, a failover seen only by the other nodes).
 */
export function redisLossSignals(redis: RedisClient, pollMs = 5000): EventEmitter & { stop(): void } {
  const signals = Object.assign(new EventEmitter(), { stop: () => undefined as void });
  const close = (): void => void signals.emit('close');
  const ready = (): void => void signals.emit('ready');
  const lost = (): void => {
    close();
    ready();
  };
  redis.on('close', close);
  redis.on('ready', ready);
  if (!isCluster(redis)) {
    signals.stop = () => {
      redis.off('close', close);
      redis.off('ready', ready);
    };
    return signals;
  }
  // A node lost, a node added, the slots read again: the topology changed (or may have), and a
  // command may now reach a promoted replica. Closed until checked (a refresh without a change
  // costs one check: the store reopens at once).
  redis.on('-node', lost);
  redis.on('+node', lost);
  redis.on('refresh', lost);
  const timer = setInterval(ready, pollMs);
  timer.unref();
  signals.stop = () => {
    clearInterval(timer);
    for (const [event, listener] of [
      ['close', close],
      ['ready', ready],
      ['-node', lost],
      ['+node', lost],
      ['refresh', lost],
    ] as const)
      redis.off(event, listener);
  };
  return signals;
}
