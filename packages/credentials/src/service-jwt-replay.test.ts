import { Redis } from 'ioredis';
import { deleteKeys, testServers, uniqueId } from '@platform/testing';
import { memorySeenJtis, newJti, redisSeenJtis, type SeenJtis } from './service-jwt-replay';

describe('seen service-JWT ids', () => {
  let redis: Redis;
  const prefix = `test:jti:${uniqueId()}:`;
  beforeAll(() => {
    redis = new Redis(testServers.redisUrl);
  });
  afterAll(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  test('when a jti is claimed twice in Redis, then the second is a replay, and the key lives no longer than asked', async () => {
    const seen = redisSeenJtis(redis, prefix);
    const jti = newJti();
    await expect(seen.claim(jti, 60_000)).resolves.toBe(true);
    await expect(seen.claim(jti, 60_000)).resolves.toBe(false);
    const ttl = await redis.pttl(`${prefix}${jti}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await expect(seen.claim(newJti(), 60_000)).resolves.toBe(true);
  });

  test('when a jti is claimed in memory, then it is a replay until its lifetime ends', async () => {
    let at = 1_000;
    const seen: SeenJtis = memorySeenJtis(() => at);
    await expect(seen.claim('a', 100)).resolves.toBe(true);
    await expect(seen.claim('a', 100)).resolves.toBe(false);
    at += 101;
    await expect(seen.claim('a', 100)).resolves.toBe(true);
  });
});
