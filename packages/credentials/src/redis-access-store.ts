import { accessLayout } from './access-layout';
import {
  decodeTokenRecord,
  type AccessStore,
  type ActiveKey,
  type IssueOutcome,
  type KeyAccessRecord,
  type TokenRecord,
} from './access-store';
import { closeRedis, isCluster, type RedisClient } from './redis-client';
import { activeKeyOf, findKeysAtOnce } from './redis-key-records';
import { redisAccessSweep } from './redis-access-sweep';
import { redisIdentity } from './redis-identity';
import { COUNT_WINDOW_LUA, redisLuaScript } from './redis-lua';
import { hashSecret } from './secrets';
import { shardTagOf, tokenShardTag } from './token-format';

// Issuance. KEYS: 1 key record, 2 token, 3 the key's issuance window, 4 the key's token set (one
// hash tag). ARGV: 1 client account id or '', 2 `issuedAt:expiresAt`, 3 ttl, 4 points, 5 window (s),
// 6 the token's hash, 7 issuedAt, 8 expiresAt, 9 '1' to issue whatever the credits (a page
// session) or ''. The key hash the token record names is the tail of KEYS[1]. The token set drops
// the hashes of expired tokens as it grows, and lives as long as its longest-lived token: it holds
// at most the key's live tokens.
// Returns {0, account, generation} issued; {1} unknown key or other account; {2} no pool with
// credits; {3, ms} over the issuance limit (counted; a refused issuance writes no token).
const ISSUE = `${COUNT_WINDOW_LUA}
local record = redis.call('HMGET', KEYS[1], 'a', 'g')
local account, generation = record[1], record[2]
if not account or not generation then return {1} end
if ARGV[1] ~= '' and ARGV[1] ~= account then return {1} end
if ARGV[9] ~= '1' and redis.call('HLEN', KEYS[1]) <= 2 then return {2} end
local consumed, ttl = count_window(KEYS[3], 1, ARGV[5])
if consumed > tonumber(ARGV[4]) then return {3, ttl} end
redis.call('SET', KEYS[2], account .. ':' .. ARGV[2] .. ':' .. generation .. ':' .. string.sub(KEYS[1], -64), 'EX', ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[7])
redis.call('ZADD', KEYS[4], ARGV[8], ARGV[6])
if redis.call('PTTL', KEYS[4]) < 1000 * tonumber(ARGV[3]) then redis.call('EXPIRE', KEYS[4], ARGV[3]) end
return {0, account, generation}`;

// Token check. KEYS[1] token; ARGV[1] the prefix of key records of the token's shard tag. The
// token's record names its key, whose record the script reads: the one key a script touches that
// is not in KEYS, because only the token's record knows it (a second round trip on every check
// would be the alternative). It has the token's hash tag by construction, so the same slot: Redis
// Cluster runs it (tested on a real cluster, tests/redis-cluster/).
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

// A key's removal. KEYS[1] key record, KEYS[2] its token set. Returns the hashes of its tokens,
// which the caller then unlinks (with the set) by name, so every key a command touches is named.
const DROP_KEY = `
redis.call('DEL', KEYS[1])
return redis.call('ZRANGE', KEYS[2], 0, -1)`;

// KEYS[1] an issuance window. Returns {count, ms left}, or {} when there is none.
const READ_WINDOW = `
local count = redis.call('GET', KEYS[1])
if not count then return {} end
return {tonumber(count), redis.call('PTTL', KEYS[1])}`;

// KEYS[1] an issuance window; ARGV count, ms left. Raises the count, never lowers it.
const RAISE_WINDOW = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > count then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1`;

/** Keys named in one UNLINK when a key's tokens are freed. */
const UNLINK_BATCH = 500;

const issueScript = redisLuaScript(ISSUE);
const dropKeyScript = redisLuaScript(DROP_KEY);
const readWindowScript = redisLuaScript(READ_WINDOW);
const raiseWindowScript = redisLuaScript(RAISE_WINDOW);
const lookupScript = redisLuaScript(LOOKUP);
const putScript = redisLuaScript(PUT);
const setPoolScript = redisLuaScript(SET_POOL);

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

/** The access store on Redis or a Redis Cluster: every command and Lua script stays in one hash slot. */
export function createRedisAccessStore(redis: RedisClient, options: RedisAccessStoreOptions = {}): AccessStore {
  const prefix = options.keyPrefix ?? 'aap:';
  const layout = accessLayout(prefix);
  const findKey = async (keyHash: string): Promise<ActiveKey | undefined> => activeKeyOf(await redis.hgetall(layout.keyRecord(keyHash)));

  const put = (record: KeyAccessRecord): Promise<unknown> =>
    putScript(
      redis,
      [layout.keyRecord(record.keyHash)],
      [String(record.accountId), String(record.generation), ...record.creditedPools.map(String)],
    );

  // The record first (the key is refused from then on), then its tokens' memory (CONTRACT §3).
  const dropKey = async (keyHash: string): Promise<void> => {
    const tag = shardTagOf(keyHash);
    const tokens = layout.keyTokens(keyHash, tag);
    const hashes = (await dropKeyScript(redis, [layout.keyRecord(keyHash, tag), tokens], [])) as string[];
    const names = [...hashes.map((hash) => layout.token(tag, hash)), tokens];
    for (let start = 0; start < names.length; start += UNLINK_BATCH) await redis.unlink(...names.slice(start, start + UNLINK_BATCH));
  };

  const sweep = redisAccessSweep(redis, prefix, layout, dropKey);

  return {
    storedKeys: (visit) => sweep.storedKeys(visit),
    forgetKeys: (keyHashes) => sweep.forgetKeys(keyHashes),
    async issue(request) {
      const { keyHash } = request;
      const tag = shardTagOf(keyHash);
      const tokenHash = hashSecret(request.token);
      const result = (await issueScript(
        redis,
        [layout.keyRecord(keyHash, tag), layout.token(tag, tokenHash), layout.issuanceWindow(keyHash, tag), layout.keyTokens(keyHash, tag)],
        [
          request.accountId === undefined ? '' : String(request.accountId),
          `${request.issuedAt}:${request.issuedAt + request.ttlSeconds}`,
          String(request.ttlSeconds),
          String(request.limit.points),
          String(request.limit.windowSeconds),
          tokenHash,
          String(request.issuedAt),
          String(request.issuedAt + request.ttlSeconds),
          request.anyBalance === true ? '1' : '',
        ],
      )) as [number, string?, string?];
      return issueOutcome(result);
    },
    findKey,
    async findKeys(keyHashes) {
      // SPEED: one explicit pipeline of HGETALLs (each in its key's slot, as every command here)
      // instead of a promise, an auto-pipelining wrapper and a callback per key; a usage batch over
      // 100 accounts checks 100 keys in one turn (see findKeysAtOnce for the figure). A Cluster
      // pipeline must stay in one slot: there each key is its own command, as findKey.
      if (isCluster(redis)) return Promise.all(keyHashes.map(findKey));
      return findKeysAtOnce(
        redis,
        keyHashes.map((keyHash) => layout.keyRecord(keyHash)),
      );
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
      await Promise.all(keyHashes.map(dropKey));
    },
    async carryIssuanceWindow(fromKeyHash, toKeyHash) {
      const window = (await readWindowScript(redis, [layout.issuanceWindow(fromKeyHash)], [])) as [number, number] | [];
      if (window.length === 0 || window[1] <= 0) return;
      await raiseWindowScript(redis, [layout.issuanceWindow(toKeyHash)], [String(window[0]), String(window[1])]);
    },
    async setPoolCredit(keyHashes, poolId, credited) {
      await Promise.all(
        keyHashes.map((keyHash) => setPoolScript(redis, [layout.keyRecord(keyHash)], [String(poolId), credited ? '1' : '0'])),
      );
    },
    async identity() {
      const [serverId, reconciled] = await Promise.all([redisIdentity(redis), redis.get(layout.reconciledMarker)]);
      return { serverId, reconciledFor: reconciled ?? undefined };
    },
    async markReconciled(marker) {
      await redis.set(layout.reconciledMarker, marker);
    },
    async ping() {
      await redis.ping();
    },
    close: () => closeRedis(redis),
  };
}
