import type { RedisClient } from './redis-client';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Failed attempts per client address in fixed one-minute windows (CONTRACT §9), as the token
 * endpoints count them, for the admin APIs.
 */
export interface FailureLimit {
  /** Counts one failure of `address`: the milliseconds until its window ends when this failure is over the limit, else undefined. */
  recordFailure(address: string): Promise<number | undefined>;
  /** The milliseconds until the address's window ends when it is over the limit already, else undefined (nothing counted). */
  blockedFor(address: string): Promise<number | undefined>;
}

export interface FailureLimitOptions {
  /** Failures allowed per address and window (AUTH_FAILURES_PER_IP). */
  points: number;
  /** Storage key prefix, e.g. `aap:rl:admin-fail`. */
  keyPrefix: string;
  durationSeconds?: number;
}

function fromLimiter(limiter: RateLimiterAbstract): FailureLimit {
  return {
    async blockedFor(address) {
      const state = await limiter.get(address);
      return state !== null && state.consumedPoints > limiter.points ? state.msBeforeNext : undefined;
    },
    async recordFailure(address) {
      try {
        await limiter.consume(address);
        return undefined;
      } catch (rejection) {
        // A RateLimiterRes when over the limit; an Error when the store failed.
        if (rejection instanceof RateLimiterRes) return rejection.msBeforeNext;
        throw rejection;
      }
    },
  };
}

/** Shared by every replica through Redis; a Redis failure rejects (the caller decides). */
export function redisFailureLimit(redis: RedisClient, options: FailureLimitOptions): FailureLimit {
  return fromLimiter(
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: options.keyPrefix,
      points: options.points,
      duration: options.durationSeconds ?? 60,
      rejectIfRedisNotReady: true,
    }),
  );
}

/** In-process, for the embedded quickstart and unit tests. */
export function memoryFailureLimit(options: FailureLimitOptions): FailureLimit {
  return fromLimiter(
    new RateLimiterMemory({ keyPrefix: options.keyPrefix, points: options.points, duration: options.durationSeconds ?? 60 }),
  );
}
