import type { Redis } from 'ioredis';
import { accessLayout } from './access-layout';
import { decodeTokenRecord, type AccessStore, type IssueOutcome, type KeyAccessRecord, type TokenRecord } from './access-store';
import { closeRedis } from './redis-client';
import { COUNT_WINDOW_LUA, redisLuaScript } from './redis-lua';
import { hashSecret } from './secrets';
import { shardTagOf, tokenShardTag } from './token-format';

// Issuance. KEYS: 1 key record, 2 token, 3 the key's issuance window (one hash tag).
// ARGV: 1 client account id or '', 2 `issuedAt:expiresAt`, 3 ttl, 4 points, 5 window (s), 6 '1' to
// issue whatever the credits (a page session) or ''. The key
// hash the token record names is the tail of KEYS[1].
// Returns {0, account, generation} issued; {1} unknown key or other account; {2} no pool with
// credits; {3, ms} over the issuance limit (counted; a refused issuance writes no token).
const ISSUE = `${COUNT_WINDOW_LUA}
local record = redis.call('HMGET', KEYS[1], 'a', 'g')
local account, generation = record[1], record[2]
if not account or not generation then return {1} end
if ARGV[1] ~= '' and ARGV[1] ~= account then return {1} end
if ARGV[6] ~= '1' and redis.call('HLEN', KEYS[1]) <= 2 then return {2} end
local consumed, ttl = count_window(KEYS[3], 1, ARGV[5])
if consumed > tonumber(ARGV[4]) then return {3, ttl} end
redis.call('SET', KEYS[2], account .. ':' .. ARGV[2] .. ':' .. generation .. ':' .. string.sub(KEYS[1], -64), 'EX', ARGV[3])
return {0, account, generation}`;

// Token check. KEYS[1] token; ARGV[1] the prefix of key records of the token's shard tag. The
// token's record names its key; that key's record has the same hash tag, so the same slot.
const LOOKUP = `
local record = redis.call('GET', KEYS[1])
if not record then return nil end
local key = string.match(record, ':([0-9a-f]+)$')
if not key then return nil end
return {record, redis.call('HGET', ARGV[1] .. key, 'g') or ''}`;

// KEYS[1] key record; ARGV: account, generation, pool ids with credits... The record is replaced
// whole, except that its generation never goes down.
const PUT = `
local kept = tonumber(redis.call('HGET', KEYS[1], 'g'))
local generation = tonumber(ARGV[2])
if kept ~= nil and kept > generation then generation = kept end
redis.call('DEL', KEYS[1])
local fields = {'a', ARGV[1], 'g', generation}
for index = 3, #ARGV do
  fields[#fields + 1] = 'p' .. ARGV[index]
  fields[#fields + 1] = 1
end
redis.call('HSET', KEYS[1], unpack(fields))
return generation`;

// KEYS[1] key record; ARGV[1] pool id, ARGV[2] 1 (credited) or 0. A missing record stays missing.
const SET_POOL = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[2] == '1' then redis.call('HSET', KEYS[1], 'p' .. ARGV[1], 1) else redis.call('HDEL', KEYS[1], 'p' .. ARGV[1]) end
return 1`;

const issueScript = redisLuaScript(ISSUE);
const lookupScript = redisLuaScript(LOOKUP);
const putScript = redisLuaScript(PUT);
const setPoolScript = redisLuaScript(SET_POOL);

const RUN_ID = /^run_id:([0-9a-f]+)\s*$/m;

export interface RedisAccessStoreOptions {
  /** Prefix of every key, e.g. `aap:` (REDIS_KEY_PREFIX); no `{` or `}` in it. */
  keyPrefix?: string;
}

function issueOutcome(result: [number, string?, string?]): IssueOutcome {
  const [kind, first, second] = result;
  if (kind === 0) return { outcome: 'issued', accountId: Number(first), generation: Number(second) };
  if (kind === 2) return { outcome: 'no_credits' };
  if (kind === 3) return { outcome: 'limited', msBeforeNext: Number(first) };
  return { outcome: 'unknown_key' };
}

/** The access store on Redis: every call is one command or one Lua script on one hash slot. */
export function createRedisAccessStore(redis: Redis, options: RedisAccessStoreOptions = {}): AccessStore {
  const layout = accessLayout(options.keyPrefix ?? 'aap:');

  const put = (record: KeyAccessRecord): Promise<unknown> =>
    putScript(
      redis,
      [layout.keyRecord(record.keyHash)],
      [String(record.accountId), String(record.generation), ...record.creditedPools.map(String)],
    );

  return {
    async issue(request) {
      const { keyHash } = request;
      const tag = shardTagOf(keyHash);
      const result = (await issueScript(
        redis,
        [layout.keyRecord(keyHash, tag), layout.token(tag, hashSecret(request.token)), layout.issuanceWindow(keyHash, tag)],
        [
          request.accountId === undefined ? '' : String(request.accountId),
          `${request.issuedAt}:${request.issuedAt + request.ttlSeconds}`,
          String(request.ttlSeconds),
          String(request.limit.points),
          String(request.limit.windowSeconds),
          request.anyBalance === true ? '1' : '',
        ],
      )) as [number, string?, string?];
      return issueOutcome(result);
    },
    async findKey(keyHash) {
      const fields = await redis.hgetall(layout.keyRecord(keyHash));
      if (fields.a === undefined || fields.g === undefined) return undefined;
      return { accountId: Number(fields.a), generation: Number(fields.g), hasCredits: Object.keys(fields).length > 2 };
    },
    async lookupToken(token, tokenHash = hashSecret(token)): Promise<TokenRecord | undefined> {
      const tag = tokenShardTag(token);
      const result = (await lookupScript(redis, [layout.token(tag, tokenHash)], [layout.keyRecordPrefix(tag)])) as [string, string] | null;
      if (!result) return undefined;
      const record = decodeTokenRecord(result[0]);
      if (!record || result[1] === '' || Number(result[1]) !== record.generation) return undefined;
      return record;
    },
    async revokeToken(token) {
      await redis.del(layout.token(tokenShardTag(token), hashSecret(token)));
    },
    async putKeys(records) {
      await Promise.all(records.map(put));
    },
    async deleteKeys(keyHashes) {
      await Promise.all(keyHashes.map((keyHash) => redis.del(layout.keyRecord(keyHash))));
    },
    async setPoolCredit(keyHashes, poolId, credited) {
      await Promise.all(
        keyHashes.map((keyHash) => setPoolScript(redis, [layout.keyRecord(keyHash)], [String(poolId), credited ? '1' : '0'])),
      );
    },
    async identity() {
      const [info, reconciled] = await Promise.all([redis.info('server'), redis.get(layout.reconciledMarker)]);
      const runId = RUN_ID.exec(info)?.[1];
      if (runId === undefined) throw new Error('Redis INFO server did not name a run_id');
      return { serverId: runId, reconciledFor: reconciled ?? undefined };
    },
    async markReconciled(serverId) {
      await redis.set(layout.reconciledMarker, serverId);
    },
    async ping() {
      await redis.ping();
    },
    close: () => closeRedis(redis),
  };
}
