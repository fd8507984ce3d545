import { Redis } from 'ioredis';
import { testServers, uniqueId } from '@platform/testing';
import { createRedisTokenStore } from '../src/redis-token-store';
import type { TokenStore } from '../src/token-store';

describe('Redis token store', () => {
  let redis: Redis;
  let store: TokenStore;
  let prefix: string;
  const mint = (tokenHash: string, accountId: number, expectedGeneration: number, ttlSeconds = 60) =>
    store.mint({ tokenHash, accountId, expectedGeneration, issuedAt: 1000, ttlSeconds });

  beforeAll(() => {
    redis = new Redis(testServers.redisUrl);
  });
  beforeEach(() => {
    prefix = `test:credentials:${uniqueId()}:`;
    store = createRedisTokenStore(redis, { keyPrefix: prefix });
  });
  afterEach(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });
  afterAll(async () => {
    await redis.quit();
  });

  test('when a token is minted, then only its hash is a key, with a TTL equal to its lifetime, and it is found', async () => {
    expect(await mint('hash-a', 1, 0, 1800)).toBe(0);
    expect(await redis.ttl(`${prefix}tok:hash-a`)).toBeGreaterThan(1795);
    expect(await store.lookup('hash-a')).toEqual({ accountId: 1, generation: 0, issuedAt: 1000, expiresAt: 2800 });
  });

  test('when the generation is bumped, then earlier tokens are refused and a mint under the old generation fails', async () => {
    await mint('hash-a', 2, 0);
    expect(await store.bumpGeneration(2, 1)).toBe(1);
    expect(await store.lookup('hash-a')).toBeUndefined();
    expect(await mint('hash-b', 2, 0)).toBeUndefined();
    expect(await redis.exists(`${prefix}tok:hash-b`)).toBe(0);
    expect(await mint('hash-c', 2, 1)).toBe(1);
    expect(await store.lookup('hash-c')).toMatchObject({ generation: 1 });
  });

  test('when Redis has no generation (lost), then a mint takes Postgres’s value; lower ones never lower it', async () => {
    expect(await mint('hash-a', 3, 7)).toBe(7);
    expect(await store.currentGeneration(3)).toBe(7);
    expect(await mint('hash-b', 3, 8)).toBe(8);
    expect(await store.lookup('hash-a')).toBeUndefined();
  });

  test('when the generation key is missing but a token record exists, then the token is refused (fail closed)', async () => {
    await mint('hash-a', 4, 0);
    await redis.del(`${prefix}gen:4`);
    expect(await store.lookup('hash-a')).toBeUndefined();
  });

  test('when minting and bumping, then the generation key gets a TTL beyond the longest token, never shortened', async () => {
    await mint('hash-a', 5, 0, 10800);
    expect(await redis.ttl(`${prefix}gen:5`)).toBeGreaterThan(10800);
    await redis.expire(`${prefix}gen:5`, 100_000);
    await store.bumpGeneration(5, 0);
    expect(await redis.ttl(`${prefix}gen:5`)).toBeGreaterThan(99_000);
  });

  test('when a token is revoked, then it alone is gone', async () => {
    await mint('hash-a', 6, 0);
    await mint('hash-b', 6, 0);
    await store.revoke('hash-a');
    expect(await store.lookup('hash-a')).toBeUndefined();
    expect(await store.lookup('hash-b')).toBeDefined();
  });

  test('when Redis does not know a script (after a restart), then the store sends its source and goes on', async () => {
    // A client whose EVALSHA answers NOSCRIPT, as a restarted Redis would (SCRIPT FLUSH would disturb other tests).
    const forgetful = Object.create(redis) as Redis;
    forgetful.evalsha = () => Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
    const evalSpy = jest.spyOn(forgetful, 'eval');
    const restarted = createRedisTokenStore(forgetful, { keyPrefix: prefix });
    expect(await restarted.mint({ tokenHash: 'hash-a', accountId: 7, expectedGeneration: 0, issuedAt: 1000, ttlSeconds: 60 })).toBe(0);
    expect(await restarted.lookup('hash-a')).toMatchObject({ accountId: 7 });
    expect(evalSpy).toHaveBeenCalledTimes(2);
  });
});
