import { Redis } from 'ioredis';
import type { Logger } from '@platform/runtime';

/**
 * A Redis client as every service uses it for tokens and limits: commands fail fast while Redis
 * is away (the caller answers 503) instead of queueing behind a reconnect; commands issued in
 * the same tick go out in one write. Resolves once connected, or after logging that Redis is not
 * reachable yet (the client keeps reconnecting; readiness reports it).
 */
export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 2000,
    // No CLIENT SETINFO round trips on every (re)connect.
    disableClientInfo: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let reported = false;
  redis.on('error', (error: Error) => {
    if (!reported) logger.warn('redis unavailable', { error: error.message });
    reported = true;
  });
  redis.on('ready', () => {
    if (reported) logger.info('redis available again');
    reported = false;
  });
  await redis
    .connect()
    .catch((error: unknown) =>
      logger.warn('redis not reachable at start', { error: error instanceof Error ? error.message : String(error) }),
    );
  return redis;
}

/** QUIT when Redis answers, else drop the socket and the reconnect timer. */
export async function closeRedis(redis: Redis): Promise<void> {
  await redis.quit().catch(() => redis.disconnect());
}
