import type { Cluster } from 'ioredis';
import { silentLogger } from '@platform/testing';
import { closeRedis, connectRedis, isCluster, REDIS_CLUSTER_COMMAND_BUDGET_MS } from './redis-client';

describe('connectRedis with REDIS_CLUSTER_NODES', () => {
  test('when given seed nodes, then it opens a cluster client whose retries end within the answer budget, reading from masters', async () => {
    // Nothing listens on port 1: the client starts anyway (readiness reports Redis as down).
    const client = await connectRedis({ clusterNodes: [{ host: '127.0.0.1', port: 1, password: 'pw', tls: false }] }, silentLogger());
    try {
      expect(isCluster(client)).toBe(true);
      const { options } = client as Cluster;
      expect(options.scaleReads).toBe('master');
      // One command's attempts and retries end within the budget, below the 5 s answer budget (CONTRACT §1).
      const longestDelay = Math.max(
        options.retryDelayOnFailover ?? 0,
        options.retryDelayOnClusterDown ?? 0,
        options.retryDelayOnTryAgain ?? 0,
      );
      expect((options.redisOptions?.commandTimeout ?? Infinity) + ((options.maxRedirections ?? 16) - 1) * longestDelay).toBeLessThanOrEqual(
        REDIS_CLUSTER_COMMAND_BUDGET_MS,
      );
      expect(REDIS_CLUSTER_COMMAND_BUDGET_MS).toBeLessThan(5000);
      expect(options.enableOfflineQueue).toBe(false);
      expect(options.enableAutoPipelining).toBe(false);
      expect(options.redisOptions).toMatchObject({ password: 'pw', commandTimeout: 2000 });
    } finally {
      await closeRedis(client);
    }
  });
});
