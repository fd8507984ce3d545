import { Redis } from 'ioredis';
import { createRedisTokenStore, generateAccessToken, hashSecret, type MintRequest, type TokenStore } from '@platform/credentials';
import { deleteKeys, testServers, uniqueId } from '@platform/testing';
import type { IssuanceGate } from '../src/domain/issue-token';
import { redisIssuanceGate } from '../src/store/issuance-gate';
import { redisWindowCounter, type RedisWindowCounter } from '../src/store/window-counters';

// The one-round-trip issuance script against the real Redis, checked against the separate calls
// it replaces: the failure counter as overLimit reads it, the issuance counter as count counts
// it, the token as the token store mints and looks it up.

const FAILURE_POINTS = 2;
const ISSUANCE_POINTS = 2;
const NOW_SECONDS = Math.floor(Date.now() / 1000);

describe('redis issuance gate', () => {
  let redis: Redis;
  let prefix: string;
  let failures: RedisWindowCounter;
  let issuances: RedisWindowCounter;
  let tokens: TokenStore;
  let gate: IssuanceGate;

  beforeEach(async () => {
    redis = new Redis(testServers.redisUrl);
    await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    prefix = `test:gate:${uniqueId()}:`;
    failures = redisWindowCounter(redis, { keyPrefix: `${prefix}rl:fail`, points: FAILURE_POINTS, durationSeconds: 60 });
    issuances = redisWindowCounter(redis, { keyPrefix: `${prefix}rl:issue`, points: ISSUANCE_POINTS, durationSeconds: 60 });
    tokens = createRedisTokenStore(redis, { keyPrefix: prefix });
    gate = redisIssuanceGate(redis, { keyPrefix: prefix, failuresByAddress: failures, issuancesByAccount: issuances });
  });

  afterEach(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  function mintRequest(accountId: number, expectedGeneration = 0): { token: string; request: MintRequest } {
    const token = generateAccessToken();
    return { token, request: { tokenHash: hashSecret(token), accountId, expectedGeneration, issuedAt: NOW_SECONDS, ttlSeconds: 1800 } };
  }

  test('when the address and the account are within their limits, then the token is minted as the token store mints it', async () => {
    const { token, request } = mintRequest(7, 3);
    expect(await gate.countAndMint('10.0.0.1', request)).toEqual({ outcome: 'minted', generation: 3 });
    expect(await tokens.lookup(hashSecret(token))).toEqual({
      accountId: 7,
      generation: 3,
      issuedAt: NOW_SECONDS,
      expiresAt: NOW_SECONDS + 1800,
    });
    expect(await tokens.currentGeneration(7)).toBe(3);
    expect(await redis.ttl(`${prefix}tok:${request.tokenHash}`)).toBeGreaterThan(1790);
    // The issuance was counted where the limiter keeps its counter.
    expect(await redis.get(issuances.storageKey('7'))).toBe('1');
    expect(await redis.pttl(issuances.storageKey('7'))).toBeGreaterThan(55_000);
  });

  test('when the account goes over its limit, then it is refused with the window left, counted, and no token is stored', async () => {
    for (let index = 0; index < ISSUANCE_POINTS; index += 1) {
      expect((await gate.countAndMint('10.0.0.1', mintRequest(7).request)).outcome).toBe('minted');
    }
    const { token, request } = mintRequest(7);
    const refused = await gate.countAndMint('10.0.0.1', request);
    expect(refused).toEqual({ outcome: 'account_limited', msBeforeNext: expect.any(Number) as unknown });
    expect((refused as { msBeforeNext: number }).msBeforeNext).toBeGreaterThan(55_000);
    expect(await tokens.lookup(hashSecret(token))).toBeUndefined();
    expect(await redis.get(issuances.storageKey('7'))).toBe(String(ISSUANCE_POINTS + 1));
    // The separate counter agrees: the next count is over the limit too.
    expect(await issuances.count('7')).toBeGreaterThan(0);
    // Another account is not affected.
    expect((await gate.countAndMint('10.0.0.1', mintRequest(8).request)).outcome).toBe('minted');
  });

  test('when the address is over its failure limit, then it is refused, the issuance still counts, and no token is stored', async () => {
    for (let index = 0; index <= FAILURE_POINTS; index += 1) await failures.count('10.0.0.9');
    const blockedFor = await failures.overLimit('10.0.0.9');
    expect(blockedFor).toBeGreaterThan(0);

    const { token, request } = mintRequest(7);
    const refused = await gate.countAndMint('10.0.0.9', request);
    expect(refused.outcome).toBe('address_limited');
    expect((refused as { msBeforeNext: number }).msBeforeNext).toBeLessThanOrEqual(60_000);
    expect((refused as { msBeforeNext: number }).msBeforeNext).toBeGreaterThan(55_000);
    expect(await tokens.lookup(hashSecret(token))).toBeUndefined();
    expect(await redis.get(issuances.storageKey('7'))).toBe('1');
    // An address exactly at its limit still passes.
    for (let index = 0; index < FAILURE_POINTS; index += 1) await failures.count('10.0.0.10');
    expect((await gate.countAndMint('10.0.0.10', mintRequest(7).request)).outcome).toBe('minted');
  });

  test('when the failure counter has no expiry, then the address is refused for a whole window, as overLimit answers', async () => {
    await redis.set(failures.storageKey('10.0.0.11'), String(FAILURE_POINTS + 1));
    expect(await failures.overLimit('10.0.0.11')).toBe(60_000);
    expect(await gate.countAndMint('10.0.0.11', mintRequest(7).request)).toEqual({ outcome: 'address_limited', msBeforeNext: 60_000 });
  });

  test('when the generation moved past the one read with the key, then the mint is refused and no token is stored', async () => {
    await tokens.bumpGeneration(7, 4);
    const { token, request } = mintRequest(7, 3);
    expect(await gate.countAndMint('10.0.0.1', request)).toEqual({ outcome: 'refused' });
    expect(await tokens.lookup(hashSecret(token))).toBeUndefined();
    expect(await tokens.currentGeneration(7)).toBe(4);
  });

  test('when Redis has lost the generation, then the one read from Postgres is set again', async () => {
    const { token, request } = mintRequest(9, 5);
    expect(await gate.countAndMint('10.0.0.1', request)).toEqual({ outcome: 'minted', generation: 5 });
    expect((await tokens.lookup(hashSecret(token)))?.generation).toBe(5);
    expect(await tokens.currentGeneration(9)).toBe(5);
  });
});
