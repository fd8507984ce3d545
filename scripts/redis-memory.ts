/**
 * Measures the Redis memory the access store takes per live token and per account at the
 * issuance limit (docs/operations.md, "Redis sizing"), on a redis-server of its own (a free
 * port, no persistence): `node --conditions=development --import tsx scripts/redis-memory.ts [tokensPerMinute] [lifetimeSeconds]`.
 * Defaults: TOKEN_RATE_PER_ACCOUNT's default (600 a minute) and the longest token lifetime (3 h).
 * It mints as the auth service does (the store's issuance script), one account minting without
 * pause for a whole token lifetime: rate × lifetime / 60 live tokens.
 */
import { Redis } from 'ioredis';
import { createRedisAccessStore, generateAccessToken, generateApiKey, hashSecret } from '@platform/credentials';
import { startPrivateRedis } from '@platform/testing';

const USED_MEMORY = /^used_memory:([0-9]+)\s*$/m;

async function usedMemory(redis: Redis): Promise<number> {
  return Number(USED_MEMORY.exec(await redis.info('memory'))?.[1]);
}

async function main(): Promise<void> {
  const rate = Number(process.argv[2] ?? 600);
  const lifetime = Number(process.argv[3] ?? 10_800);
  const tokens = Math.round((rate * lifetime) / 60);
  const server = await startPrivateRedis();
  const redis = new Redis(server.url);
  redis.on('error', () => undefined);
  try {
    const store = createRedisAccessStore(redis, { keyPrefix: 'aap:' });
    const apiKey = generateApiKey();
    const keyHash = hashSecret(apiKey);
    const empty = await usedMemory(redis);
    await store.putKeys([{ keyHash, accountId: 1, generation: 1, creditedPools: [1, 2] }]);
    const issuedAt = Math.floor(Date.now() / 1000);
    // Every token counts in one window long enough to hold them all (the rate is what limits them in production).
    const limit = { points: tokens, windowSeconds: lifetime };
    const withRecord = await usedMemory(redis);
    for (let start = 0; start < tokens; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, tokens - start) }, () =>
        store.issue({ keyHash, token: generateAccessToken(keyHash), issuedAt, ttlSeconds: lifetime, limit }),
      );
      await Promise.all(batch);
    }
    const full = await usedMemory(redis);
    const perToken = (full - withRecord) / tokens;
    const sample = (await redis.keys('aap:*:tok:*'))[0] ?? '';
    const [tokenKey, tokenSet, keyRecord] = await Promise.all([
      redis.memory('USAGE', sample),
      redis.memory('USAGE', `aap:{${keyHash.slice(0, 4)}}:toks:${keyHash}`, 'SAMPLES', '0'),
      redis.memory('USAGE', `aap:{${keyHash.slice(0, 4)}}:key:${keyHash}`),
    ]);
    await store.deleteKeys([keyHash]);
    // UNLINK frees big values on a background thread: wait for it to be done.
    while (Number(/^lazyfree_pending_objects:([0-9]+)/m.exec(await redis.info('memory'))?.[1] ?? 0) > 0)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const afterRotation = await usedMemory(redis);
    const report = {
      tokensPerMinute: rate,
      lifetimeSeconds: lifetime,
      liveTokensAtTheLimit: tokens,
      usedMemoryBytes: { empty, withKeyRecord: withRecord, atTheLimit: full, afterTheKeyIsReplaced: afterRotation },
      bytesPerLiveToken: Math.round(perToken),
      bytesPerAccountAtTheLimit: full - empty,
      memoryUsage: { oneTokenRecord: tokenKey, theKeysTokenSet: tokenSet, keyRecord },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    redis.disconnect();
    await server.close();
  }
}

void main();
