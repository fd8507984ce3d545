import type { Redis } from 'ioredis';
import { MINT_LUA, mintArguments, redisLuaScript, redisTokenKeys } from '@platform/credentials';
import type { IssuanceGate, IssuanceGateOutcome } from '../domain/issue-token';
import { asUnavailable } from './unavailable';
import { COUNT_WINDOW_LUA, type RedisWindowCounter } from './window-counters';

// The three Redis steps of an issuance in one script, so one round trip and one command:
// 1. the address's failure counter, read as RedisWindowCounter.overLimit reads it;
// 2. the account's issuance counter, counted as RedisWindowCounter.count counts it (whether or
//    not the address passes, as when the two ran side by side);
// 3. the mint (MINT_LUA, the token store's own), only when neither refuses, so a refused
//    issuance leaves no token behind.
// KEYS: 1 address failure counter, 2 account issuance counter, 3 generation key, 4 token key.
// ARGV: 1 failure points, 2 failure window (s), 3 issuance points, 4 issuance window (s),
//       5.. mint arguments (expected generation, record prefix, ttl, generation ttl).
// Returns {0, generation} (minted; -1: the generation moved on), {1, ms} address over its limit,
// {2, ms} account over its limit.
const COUNT_AND_MINT = `${MINT_LUA}
${COUNT_WINDOW_LUA}
local blocked = -1
local failures = tonumber(redis.call('GET', KEYS[1]))
if failures ~= nil and failures > tonumber(ARGV[1]) then
  local remaining = redis.call('PTTL', KEYS[1])
  if remaining >= 0 then blocked = remaining elseif remaining == -1 then blocked = 1000 * tonumber(ARGV[2]) end
end
local consumed, ttl = count_window(KEYS[2], 1, ARGV[4])
if blocked >= 0 then return {1, blocked} end
if consumed > tonumber(ARGV[3]) then return {2, ttl} end
return {0, mint(KEYS[3], KEYS[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])}`;

const countAndMint = redisLuaScript(COUNT_AND_MINT);

export interface RedisIssuanceGateOptions {
  /** The token store's key prefix (REDIS_KEY_PREFIX). */
  keyPrefix: string;
  failuresByAddress: RedisWindowCounter;
  issuancesByAccount: RedisWindowCounter;
  generationTtlSeconds?: number;
}

/** The issuance gate on the Redis that holds both the limit counters and the token store. */
export function redisIssuanceGate(redis: Redis, options: RedisIssuanceGateOptions): IssuanceGate {
  const { tokenKey, genKey } = redisTokenKeys(options.keyPrefix);
  const { failuresByAddress: failures, issuancesByAccount: issuances } = options;
  const limits = [String(failures.points), String(failures.durationSeconds), String(issuances.points), String(issuances.durationSeconds)];
  return {
    async countAndMint(address, request): Promise<IssuanceGateOutcome> {
      let result: [number, number];
      try {
        // rejectIfRedisNotReady, as the limiter checks it.
        if (redis.status !== 'ready') throw new Error('Redis connection is not ready');
        result = (await countAndMint(
          redis,
          [
            failures.storageKey(address),
            issuances.storageKey(String(request.accountId)),
            genKey(request.accountId),
            tokenKey(request.tokenHash),
          ],
          [...limits, ...mintArguments(request, options.generationTtlSeconds)],
        )) as [number, number];
      } catch (error) {
        throw asUnavailable(error);
      }
      const [kind, value] = result;
      if (kind === 1) return { outcome: 'address_limited', msBeforeNext: value };
      if (kind === 2) return { outcome: 'account_limited', msBeforeNext: value };
      return value < 0 ? { outcome: 'refused' } : { outcome: 'minted', generation: value };
    },
  };
}
