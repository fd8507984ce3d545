import { Cluster, Redis } from 'ioredis';
import { errorMessage, type Logger } from '@platform/runtime';

/**
 * The client every store takes: one Redis server or a Redis Cluster. Both speak the same
 * commands; every command and script of this project stays in one hash slot (CONTRACT §1).
 */
export type RedisClient = Redis | Cluster;

/** A Redis Cluster seed node (REDIS_CLUSTER_NODES), with the credentials and TLS of a `redis[s]://` entry. */
export interface RedisClusterNode {
  host: string;
  port: number;
  username?: string;
  password?: string;
  tls?: boolean;
}

/** Where Redis is: one server's URL (REDIS_URL) or a cluster's seed nodes (REDIS_CLUSTER_NODES). */
export type RedisTarget = { url: string } | { clusterNodes: readonly RedisClusterNode[] };

/**
 * The cluster-node-timeout (ms) the failover options are sized for: the docs (docs/operations.md,
 * "Redis Cluster") ask for a cluster-node-timeout of at most this. ioredis' docs: keep
 * retryDelayOnFailover × maxRedirections above it, so that a command caught in a failover is
 * retried on the promoted replica instead of failing.
 */
export const CLUSTER_NODE_TIMEOUT_MS = 5000;
const RETRY_DELAY_ON_FAILOVER_MS = 400;
const MAX_REDIRECTIONS = 16;

// Commands fail fast while Redis is away (the caller answers 503) instead of queueing behind a
// reconnect; no CLIENT SETINFO round trips on every (re)connect.
const COMMON = { enableOfflineQueue: false } as const;
const NODE = {
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  commandTimeout: 2000,
  disableClientInfo: true,
} as const;

function newClient(target: RedisTarget): RedisClient {
  if ('url' in target) {
    // Commands issued in the same tick go out in one write.
    return new Redis(target.url, {
      ...COMMON,
      ...NODE,
      enableAutoPipelining: true,
      lazyConnect: true,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
  }
  // Every node of a cluster takes the same credentials: the first seed that names some gives them.
  const secured = target.clusterNodes.find((node) => node.password !== undefined || node.tls === true);
  const access = {
    ...(secured?.username ? { username: secured.username } : {}),
    ...(secured?.password !== undefined ? { password: secured.password } : {}),
    ...(secured?.tls ? { tls: {} } : {}),
  };
  return new Cluster(
    target.clusterNodes.map(({ host, port }) => ({ host, port })),
    {
      ...COMMON,
      lazyConnect: true,
      // No auto-pipelining: a pipeline whose commands meet a slot that moved (a failover) gets the
      // raw MOVED errors back instead of being redirected, and the client's slot map stays stale.
      enableAutoPipelining: false,
      // Replicas may lag behind their master: every read goes to the master (CONTRACT §3).
      scaleReads: 'master',
      retryDelayOnFailover: RETRY_DELAY_ON_FAILOVER_MS,
      maxRedirections: MAX_REDIRECTIONS,
      retryDelayOnClusterDown: 300,
      retryDelayOnTryAgain: 100,
      clusterRetryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      redisOptions: { ...NODE, ...access },
    },
  );
}

/** Whether the client talks to a Redis Cluster. */
export function isCluster(redis: RedisClient): redis is Cluster {
  return redis instanceof Cluster;
}

/**
 * A Redis client as every service uses it for tokens and limits. Resolves once connected, or
 * after logging that Redis is not reachable yet (the client keeps reconnecting; readiness
 * reports it).
 */
export async function connectRedis(url: string, logger: Logger): Promise<Redis>;
export async function connectRedis(target: RedisTarget, logger: Logger): Promise<RedisClient>;
export async function connectRedis(target: RedisTarget | string, logger: Logger): Promise<RedisClient> {
  const redis = newClient(typeof target === 'string' ? { url: target } : target);
  let reported = false;
  redis.on('error', (error: Error) => {
    if (!reported) logger.warn('redis unavailable', { error: error.message });
    reported = true;
  });
  redis.on('ready', () => {
    if (reported) logger.info('redis available again');
    reported = false;
  });
  await redis.connect().catch((error: unknown) => logger.warn('redis not reachable at start', { error: errorMessage(error) }));
  return redis;
}

/** QUIT when Redis answers, else drop the socket and the reconnect timer. */
export async function closeRedis(redis: RedisClient): Promise<void> {
  await redis.quit().catch(() => redis.disconnect());
}
