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

/** The cluster-node-timeout (ms) the docs (docs/operations.md, "Redis Cluster") ask for at most. */
export const CLUSTER_NODE_TIMEOUT_MS = 5000;
const COMMAND_TIMEOUT_MS = 2000;
/** The longest wait before a cluster command is sent again (a failover, CLUSTERDOWN, TRYAGAIN). */
const RETRY_DELAY_MS = 300;
/** Attempts of one cluster command, the first included (every MOVED and every retry counts). */
const MAX_REDIRECTIONS = 6;

/**
 * The longest one command can take on a Redis Cluster: an attempt may wait out the command
 * timeout before its connection fails, then the retries, each after at most RETRY_DELAY_MS.
 * Below the 5 s within which a request caught in a failover must answer (CONTRACT §1), and
 * shorter than a failover (cluster-node-timeout, then an election): a command caught in one
 * fails and its request answers 503 rather than waiting for the promoted replica, whose answer
 * would be refused anyway (the access store closes with the lost connection, see
 * docs/operations.md, "Failover and revocation").
 */
export const REDIS_CLUSTER_COMMAND_BUDGET_MS = COMMAND_TIMEOUT_MS + (MAX_REDIRECTIONS - 1) * RETRY_DELAY_MS;

// Commands fail fast while Redis is away (the caller answers 503) instead of queueing behind a
// reconnect; no CLIENT SETINFO round trips on every (re)connect.
const COMMON = { enableOfflineQueue: false } as const;
const NODE = {
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  commandTimeout: COMMAND_TIMEOUT_MS,
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
      // Bounded by REDIS_CLUSTER_COMMAND_BUDGET_MS.
      retryDelayOnFailover: RETRY_DELAY_MS,
      maxRedirections: MAX_REDIRECTIONS,
      retryDelayOnClusterDown: RETRY_DELAY_MS,
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
