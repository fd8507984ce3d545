import { randomUUID } from 'node:crypto';
import type { RedisClient } from './redis-client';

/**
 * The `jti`s of service JWTs seen within their lifetime (issue 45): a JWT that carries a `jti` is
 * accepted once; presented again before it expires, it is a replay. Kept in Redis with a TTL of
 * the JWT's remaining lifetime (shared by every replica), or in memory for the embedded store.
 */
export interface SeenJtis {
  /** Records `jti` for `ttlMs`; false when it was recorded already and has not expired (a replay). */
  claim(jti: string, ttlMs: number): Promise<boolean>;
}

/** A fresh `jti` for a service JWT. */
export const newJti = (): string => randomUUID();

export function redisSeenJtis(redis: RedisClient, keyPrefix: string): SeenJtis {
  return {
    async claim(jti, ttlMs) {
      const set = await redis.set(`${keyPrefix}${jti}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
      return set === 'OK';
    },
  };
}

/** In-process (the embedded quickstart, unit tests); expired entries are dropped as new ones come. */
export function memorySeenJtis(now: () => number = Date.now): SeenJtis {
  const until = new Map<string, number>();
  return {
    claim(jti, ttlMs) {
      const at = now();
      for (const [kept, end] of until) {
        if (end > at) break;
        until.delete(kept);
      }
      const end = until.get(jti);
      if (end !== undefined && end > at) return Promise.resolve(false);
      until.delete(jti);
      until.set(jti, at + ttlMs);
      return Promise.resolve(true);
    },
  };
}
