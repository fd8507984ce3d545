import type { Redis } from 'ioredis';
import { decodeRecord, encodeRecord, type MintRequest, type TokenRecord, type TokenStore } from './token-store';

// KEYS[1] gen key, KEYS[2] token key; ARGV expected generation, record prefix, ttl.
// A missing or lower generation (Redis lost it) is raised to what Postgres says; a higher one
// means the key was rotated after the caller read it: refuse.
const MINT = `
local current = tonumber(redis.call('GET', KEYS[1]))
local expected = tonumber(ARGV[1])
if current == nil or current < expected then
  redis.call('SET', KEYS[1], ARGV[1])
  current = expected
end
if current > expected then return -1 end
redis.call('SET', KEYS[2], ARGV[2] .. ':' .. current, 'EX', tonumber(ARGV[3]))
return current`;

// KEYS[1] token key; ARGV[1] gen key prefix. Record and current generation in one round trip.
const LOOKUP = `
local record = redis.call('GET', KEYS[1])
if not record then return nil end
local account = string.match(record, '^(%d+):')
return { record, redis.call('GET', ARGV[1] .. account) or '' }`;

// KEYS[1] gen key; ARGV[1] at least.
const BUMP = `
local current = tonumber(redis.call('GET', KEYS[1])) or 0
local next = math.max(current + 1, tonumber(ARGV[1]))
redis.call('SET', KEYS[1], next)
return next`;

export interface RedisTokenStoreOptions {
  /** Prefix for every key, e.g. `aap:` (keys: `<prefix>tok:<sha256>`, `<prefix>gen:<accountId>`). */
  keyPrefix?: string;
}

/** Token store on Redis; generation and token checks are Lua scripts (one round trip each). */
export function createRedisTokenStore(redis: Redis, options: RedisTokenStoreOptions = {}): TokenStore {
  const prefix = options.keyPrefix ?? 'aap:';
  const genPrefix = `${prefix}gen:`;
  const tokenKey = (hash: string): string => `${prefix}tok:${hash}`;
  const genKey = (accountId: number): string => `${genPrefix}${accountId}`;

  return {
    async mint(request: MintRequest) {
      const result = (await redis.eval(
        MINT,
        2,
        genKey(request.accountId),
        tokenKey(request.tokenHash),
        String(request.expectedGeneration),
        encodeRecord(request.accountId, request.issuedAt, request.issuedAt + request.ttlSeconds),
        String(request.ttlSeconds),
      )) as number;
      return result < 0 ? undefined : result;
    },
    async lookup(tokenHash: string): Promise<TokenRecord | undefined> {
      const result = (await redis.eval(LOOKUP, 1, tokenKey(tokenHash), genPrefix)) as [string, string] | null;
      if (!result) return undefined;
      const record = decodeRecord(result[0]);
      if (!record || result[1] === '' || Number(result[1]) !== record.generation) return undefined;
      return record;
    },
    async revoke(tokenHash: string) {
      await redis.del(tokenKey(tokenHash));
    },
    async bumpGeneration(accountId: number, atLeast: number) {
      return Number(await redis.eval(BUMP, 1, genKey(accountId), String(atLeast)));
    },
    async currentGeneration(accountId: number) {
      const value = await redis.get(genKey(accountId));
      return value === null ? undefined : Number(value);
    },
    async ping() {
      await redis.ping();
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
