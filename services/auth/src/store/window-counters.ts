import type { Redis } from 'ioredis';
import { redisLuaScript } from '@platform/credentials';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { WindowCounter } from '../domain/attempt-limits';
import { asUnavailable } from './unavailable';

export interface WindowOptions {
  /** Events allowed per window. */
  points: number;
  durationSeconds: number;
  /** Storage key prefix, e.g. `aap:rl:fail`. */
  keyPrefix: string;
}

function windowCounter(limiter: RateLimiterAbstract): WindowCounter {
  return {
    async overLimit(key) {
      let state: RateLimiterRes | null;
      try {
        state = await limiter.get(key);
      } catch (error) {
        throw asUnavailable(error);
      }
      return state !== null && state.consumedPoints > limiter.points ? state.msBeforeNext : undefined;
    },
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

/**
 * Lua: `count_window(key, points, window)` adds `points` to a fixed-window counter and returns
 * the count and the milliseconds left in its window. The steps of rate-limiter-flexible's own
 * counting script (RateLimiterRedis), so the counters stay the library's.
 */
export const COUNT_WINDOW_LUA = `
local function count_window(key, points, window)
  redis.call('set', key, 0, 'EX', window, 'NX')
  local consumed = redis.call('incrby', key, points)
  local ttl = redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, window)
    ttl = 1000 * window
  end
  return consumed, ttl
end`;

// KEYS[1] the counter's storage key; ARGV[1] points to add, ARGV[2] window in seconds.
const INCR_TTL = `${COUNT_WINDOW_LUA}
local consumed, ttl = count_window(KEYS[1], ARGV[1], ARGV[2])
return {consumed, ttl}`;

const incrTtl = redisLuaScript(INCR_TTL);

/** A counter on Redis, with what a script that counts beside other work needs to know. */
export interface RedisWindowCounter extends WindowCounter {
  /** The Redis key of `key`'s counter (the limiter's own). */
  storageKey(key: string): string;
  /** Events allowed per window. */
  points: number;
  durationSeconds: number;
}

export function isRedisCounter(counter: WindowCounter): counter is RedisWindowCounter {
  return typeof (counter as Partial<RedisWindowCounter>).storageKey === 'function';
}

/** Fixed-window counter shared by every instance through Redis. */
export function redisWindowCounter(redis: Redis, options: WindowOptions): RedisWindowCounter {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.durationSeconds,
    rejectIfRedisNotReady: true,
  });
  const windowSeconds = String(options.durationSeconds);
  return {
    ...windowCounter(limiter),
    storageKey: (key) => limiter.getKey(key),
    points: limiter.points,
    durationSeconds: options.durationSeconds,
    // What limiter.consume(key) does with this configuration (no blocks, no insurance limiter):
    // the library's counting script, refused above the points. Run directly, it costs one
    // EVALSHA and no MULTI pipeline that the library builds (and drops) on every call.
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
    // Every request asks this, so it is one GET of the limiter's own counter (under its public
    // getKey()) instead of the library's MULTI/GET/PTTL/EXEC; the PTTL only for an address over the limit.
    async overLimit(key) {
      const storageKey = limiter.getKey(key);
      try {
        const consumed = Number(await redis.get(storageKey));
        if (!(consumed > limiter.points)) return undefined;
        const remainingMs = await redis.pttl(storageKey);
        if (remainingMs === -2) return undefined; // the window ended in between
        return remainingMs >= 0 ? remainingMs : options.durationSeconds * 1000;
      } catch (error) {
        throw asUnavailable(error);
      }
    },
  };
}

/** In-process counter for the embedded quickstart (one process, memory token store). */
export function memoryWindowCounter(options: WindowOptions): WindowCounter {
  return windowCounter(new RateLimiterMemory({ keyPrefix: options.keyPrefix, points: options.points, duration: options.durationSeconds }));
}
