import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-client';

/** A Lua script run by EVALSHA (the source is sent again only after a NOSCRIPT, e.g. a Redis restart). */
export function redisLuaScript(source: string): (redis: RedisClient, keys: string[], args: string[]) => Promise<unknown> {
  const sha = createHash('sha1').update(source).digest('hex');
  return async (redis, keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return redis.eval(source, keys.length, ...keys, ...args);
      throw error;
    }
  };
}

/**
 * Lua: `count_window(key, points, window)` adds `points` to a fixed-window counter and returns
 * the count and the milliseconds left in its window. The steps of rate-limiter-flexible's own
 * counting script (RateLimiterRedis), so a counter reads the same to the library.
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
