import { Cluster, type Redis } from 'ioredis';

async function deleteOn(node: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    // One DEL per key: on a cluster the keys of one scan belong to many slots.
    await Promise.all(keys.map((key) => node.del(key)));
    cursor = next;
  } while (cursor !== '0');
}

/** Deletes every Redis key under a test's own prefix (tests never flush the shared Redis), on one server or every cluster master. */
export async function deleteKeys(redis: Redis | Cluster, prefix: string): Promise<void> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  // A client's view of a cluster may be stale after a failover: a former master answers MOVED, a killed one not at all.
  for (const node of nodes) {
    const [role] = (await node.role().catch(() => ['gone'])) as unknown[];
    if (role === 'master') await deleteOn(node, prefix);
  }
}
