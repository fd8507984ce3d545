import type { Redis } from 'ioredis';
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

/** Fixed-window counter shared by every instance through Redis. */
export function redisWindowCounter(redis: Redis, options: WindowOptions): WindowCounter {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.durationSeconds,
    rejectIfRedisNotReady: true,
  });
  return {
    ...windowCounter(limiter),
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
