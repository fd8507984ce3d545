import type { Cluster } from 'ioredis';
import { silentLogger } from '@platform/testing';
import { CLUSTER_NODE_TIMEOUT_MS, closeRedis, connectRedis, isCluster } from './redis-client';

describe('connectRedis with REDIS_CLUSTER_NODES', () => {
  test('when given seed nodes, then it opens a cluster client with the failover options ioredis asks for, reading from masters', async () => {
    // Nothing listens on port 1: the client starts anyway (readiness reports Redis as down).
    const client = await connectRedis({ clusterNodes: [{ host: '127.0.0.1', port: 1, password: 'pw', tls: false }] }, silentLogger());
    try {
      expect(isCluster(client)).toBe(true);
      const { options } = client as Cluster;
      expect(options.scaleReads).toBe('master');
      expect((options.retryDelayOnFailover ?? 0) * (options.maxRedirections ?? 0)).toBeGreaterThan(CLUSTER_NODE_TIMEOUT_MS);
      expect(options.enableOfflineQueue).toBe(false);
      expect(options.enableAutoPipelining).toBe(false);
      expect(options.redisOptions).toMatchObject({ password: 'pw', commandTimeout: 2000 });
    } finally {
      await closeRedis(client);
    }
  });
});
