import { COUNT_WINDOW_LUA, redisLuaScript, type RedisClient } from '@platform/credentials';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { WindowCounter } from '../domain/attempt-limits';
import { asUnavailable } from './unavailable';

export interface WindowOptions {
  /** Events allowed per window. */
  points: number;
  durationSeconds: number;
  /** Storage key prefix, e.g. `aap:rl:fail`. */
  keyPrefix: string;
}

// KEYS[1] the counter's storage key; ARGV[1] points to add, ARGV[2] window in seconds.
const INCR_TTL = `${COUNT_WINDOW_LUA}
local consumed, ttl = count_window(KEYS[1], ARGV[1], ARGV[2])
return {consumed, ttl}`;

const incrTtl = redisLuaScript(INCR_TTL);

/**
 * Fixed-window counter shared by every instance through Redis, under rate-limiter-flexible's
 * key (`<keyPrefix>:<key>`, one key per command, so any hash slot). What limiter.consume(key)
 * does with this configuration (no blocks, no insurance limiter), as one EVALSHA instead of the
 * library's MULTI pipeline.
 */
export function redisWindowCounter(redis: RedisClient, options: WindowOptions): WindowCounter {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.durationSeconds,
    rejectIfRedisNotReady: true,
  });
  const windowSeconds = String(options.durationSeconds);
  return {
    async count(key) {
      try {
        // rejectIfRedisNotReady, as the library checks it.
        if (redis.status !== 'ready') throw new Error('Redis connection is not ready');
        const [consumed, msBeforeNext] = (await incrTtl(redis, [limiter.getKey(key)], ['1', windowSeconds])) as [number, number];
        return consumed > limiter.points ? msBeforeNext : undefined;
      } catch (error) {
        throw asUnavailable(error);
      }
    },
  };
}

/** In-process counter for the embedded quickstart (one process, memory access store). */
export function memoryWindowCounter(options: WindowOptions): WindowCounter {
  const limiter = new RateLimiterMemory({ keyPrefix: options.keyPrefix, points: options.points, duration: options.durationSeconds });
  return {
    async count(key) {
      try {
        await limiter.consume(key);
        return undefined;
      } catch (rejection) {
        // rate-limiter-flexible rejects with a RateLimiterRes when over the limit, with an Error when the store failed.
        if (rejection instanceof RateLimiterRes) return rejection.msBeforeNext;
        throw asUnavailable(rejection);
      }
    },
  };
}
