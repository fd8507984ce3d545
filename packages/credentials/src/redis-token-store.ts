import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { closeRedis } from './redis-client';
import { decodeRecord, encodeRecord, type MintRequest, type TokenRecord, type TokenStore } from './token-store';

// Keeps a generation key alive at least `seconds` more (never shortens it). A generation key
// must outlive every token minted under it; once none is left it may expire, and the next mint
// sets it again from Postgres (accounts.key_generation).
const KEEP_AT_LEAST = `
local function keep_at_least(key, seconds)
  if redis.call('TTL', key) < seconds then redis.call('EXPIRE', key, seconds) end
end`;

/**
 * Lua for scripts that mint a token: `mint(gen_key, token_key, expected, record_prefix, ttl,
 * gen_ttl)` stores `<record_prefix>:<generation>` under the token key for `ttl` seconds and
 * returns the generation, or -1 when the account's generation has moved past `expected`.
 * A missing or lower generation (Redis lost it) is raised to what Postgres says; a higher one
 * means the key was rotated after the caller read it: refuse. Other scripts (the auth service's
 * one-round-trip issuance) include it so that every mint follows the same rule.
 */
export const MINT_LUA = `${KEEP_AT_LEAST}
local function mint(gen_key, token_key, expected_text, record_prefix, ttl_text, gen_ttl_text)
  local current = tonumber(redis.call('GET', gen_key))
  local expected = tonumber(expected_text)
  if current == nil or current < expected then
    redis.call('SET', gen_key, expected_text)
    current = expected
  end
  if current > expected then return -1 end
  local ttl = tonumber(ttl_text)
  redis.call('SET', token_key, record_prefix .. ':' .. current, 'EX', ttl)
  keep_at_least(gen_key, math.max(tonumber(gen_ttl_text), ttl + 60))
  return current
end`;

// KEYS[1] gen key, KEYS[2] token key; ARGV expected generation, record prefix, ttl, gen ttl.
const MINT = `${MINT_LUA}
return mint(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4])`;

// KEYS[1] token key; ARGV[1] gen key prefix. Record and current generation in one round trip.
const LOOKUP = `
local record = redis.call('GET', KEYS[1])
if not record then return nil end
local account = string.match(record, '^(%d+):')
if not account then return nil end
return { record, redis.call('GET', ARGV[1] .. account) or '' }`;

// KEYS[1] gen key; ARGV[1] at least, ARGV[2] gen ttl.
const BUMP = `${KEEP_AT_LEAST}
local current = tonumber(redis.call('GET', KEYS[1])) or 0
local next = math.max(current + 1, tonumber(ARGV[1]))
redis.call('SET', KEYS[1], next, 'KEEPTTL')
keep_at_least(KEYS[1], tonumber(ARGV[2]))
return next`;

/** A Lua script run by EVALSHA (the source is sent again only after a NOSCRIPT, e.g. a Redis restart). */
export function redisLuaScript(source: string): (redis: Redis, keys: string[], args: string[]) => Promise<unknown> {
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

const mintScript = redisLuaScript(MINT);
const lookupScript = redisLuaScript(LOOKUP);
const bumpScript = redisLuaScript(BUMP);

/** Longest token lifetime (10800 s) plus an hour: generation keys outlive their tokens. */
export const DEFAULT_GENERATION_TTL_SECONDS = 14_400;

export interface RedisTokenStoreOptions {
  /** Prefix for every key, e.g. `aap:` (keys: `<prefix>tok:<sha256>`, `<prefix>gen:<accountId>`). */
  keyPrefix?: string;
  /** Minimum remaining lifetime of a generation key after a mint or a bump. */
  generationTtlSeconds?: number;
}

/** Where the Redis token store keeps tokens and generations under a key prefix. */
export function redisTokenKeys(keyPrefix = 'aap:'): {
  tokenKey: (hash: string) => string;
  genKey: (accountId: number) => string;
  genPrefix: string;
} {
  const genPrefix = `${keyPrefix}gen:`;
  return {
    tokenKey: (hash) => `${keyPrefix}tok:${hash}`,
    genKey: (accountId) => `${genPrefix}${accountId}`,
    genPrefix,
  };
}

/** The arguments of `mint` in MINT_LUA after the two keys: expected generation, record prefix, ttl, gen ttl. */
export function mintArguments(request: MintRequest, generationTtlSeconds = DEFAULT_GENERATION_TTL_SECONDS): string[] {
  return [
    String(request.expectedGeneration),
    encodeRecord(request.accountId, request.issuedAt, request.issuedAt + request.ttlSeconds),
    String(request.ttlSeconds),
    String(generationTtlSeconds),
  ];
}

/** Token store on Redis; generation and token checks are Lua scripts (one round trip each). */
export function createRedisTokenStore(redis: Redis, options: RedisTokenStoreOptions = {}): TokenStore {
  const generationTtlSeconds = options.generationTtlSeconds ?? DEFAULT_GENERATION_TTL_SECONDS;
  const genTtl = String(generationTtlSeconds);
  const { tokenKey, genKey, genPrefix } = redisTokenKeys(options.keyPrefix);

  return {
    async mint(request: MintRequest) {
      const result = Number(
        await mintScript(redis, [genKey(request.accountId), tokenKey(request.tokenHash)], mintArguments(request, generationTtlSeconds)),
      );
      return result < 0 ? undefined : result;
    },
    async lookup(tokenHash: string): Promise<TokenRecord | undefined> {
      const result = (await lookupScript(redis, [tokenKey(tokenHash)], [genPrefix])) as [string, string] | null;
      if (!result) return undefined;
      const record = decodeRecord(result[0]);
      if (!record || result[1] === '' || Number(result[1]) !== record.generation) return undefined;
      return record;
    },
    async revoke(tokenHash: string) {
      await redis.del(tokenKey(tokenHash));
    },
    async bumpGeneration(accountId: number, atLeast: number) {
      return Number(await bumpScript(redis, [genKey(accountId)], [String(atLeast), genTtl]));
    },
    async currentGeneration(accountId: number) {
      const value = await redis.get(genKey(accountId));
      return value === null ? undefined : Number(value);
    },
    async ping() {
      await redis.ping();
    },
    close: () => closeRedis(redis),
  };
}
